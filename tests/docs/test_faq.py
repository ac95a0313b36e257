"""The FAQ's deal code is run: the Python snippet in-process, the JavaScript one with node.

Both must reproduce ``service.engine.deal_cards`` for the FAQ's test vectors (which
must themselves match ``tests/engine/deal_vectors.json``) and for random deals.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from service.engine import DEAL_COUNT, GameCode, deal_cards

ROOT = Path(__file__).resolve().parents[2]
FAQ = (ROOT / "docs" / "FAQ.md").read_text(encoding="utf-8")
VECTORS = json.loads((ROOT / "tests" / "engine" / "deal_vectors.json").read_text(encoding="utf-8"))
_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```\s*$", re.M | re.S)


def blocks(lang: str) -> list[str]:
    return [body for name, body in _BLOCK.findall(FAQ) if name == lang]


def engine_deal(number: int) -> dict:
    tableau, stock = deal_cards(number)
    return {"tableau": [[str(card) for card in column] for column in tableau],
            "stock": [str(card) for card in stock]}


DEALS = [0, 1, DEAL_COUNT - 1, *random.Random(8).sample(range(DEAL_COUNT), 20)]
CODES = ["TF1-D1N-AAAAAAA", "tf1-d3n-aaaaaab", "TF1-D1N-ZZZZZZZ", "TF1-D3N-HELLOAB", "TF1-D1N-AAAABAA"]


def test_faq_vectors_are_the_engine_vectors():
    (vectors,) = [json.loads(body) for body in blocks("json") if '"TF1-' in body]
    assert vectors == VECTORS
    for code, expected in vectors.items():
        assert engine_deal(GameCode.parse(code).deal) == expected


def test_python_snippet_deals_like_the_engine():
    (snippet,) = blocks("python")
    namespace: dict = {}
    exec(compile(snippet, "FAQ.md:python", "exec"), namespace)
    deal, deal_number = namespace["deal"], namespace["deal_number"]
    for code in CODES:
        assert deal_number(code) == GameCode.parse(code).deal
    for code, expected in VECTORS.items():
        tableau, stock = deal(deal_number(code))
        assert {"tableau": tableau, "stock": stock} == expected
    for number in DEALS:
        tableau, stock = deal(number)
        assert {"tableau": tableau, "stock": stock} == engine_deal(number)


def test_javascript_snippet_deals_like_the_engine(tmp_path):
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("node is required under CI to check the FAQ's JavaScript")
        pytest.skip("node is not installed")
    (snippet,) = blocks("javascript")
    harness = tmp_path / "deal.js"
    harness.write_text(
        snippet
        + f"\nconst codes = {json.dumps(CODES)};\nconst numbers = {json.dumps(DEALS)};\n"
        + "console.log(JSON.stringify({numbers: codes.map(dealNumber), deals: numbers.map(deal)}));\n",
        encoding="utf-8",
    )
    result = subprocess.run([node, str(harness)], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["numbers"] == [GameCode.parse(code).deal for code in CODES]
    assert out["deals"] == [engine_deal(number) for number in DEALS]
