"""RULES_VERSION: one number for the engine's behaviour, the same in the JavaScript package.

A client refuses to judge locally with an engine older than the server's, which only works
if the number changes whenever the behaviour does: the fingerprint of a fixed set of the
engine's answers (service.vectors.fingerprint) is recorded per version here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from service.engine import RULES_VERSION
from service.vectors import fingerprint

ROOT = Path(__file__).resolve().parents[2]
FINGERPRINTS = Path(__file__).with_name("rules_fingerprints.json")
JS_GAME = ROOT / "clients" / "js" / "src" / "game.js"


@pytest.mark.slow  # replays every recorded game: seconds, so out of the quick loop (make test runs it)
def test_the_engine_behaves_as_recorded_for_its_rules_version():
    recorded = json.loads(FINGERPRINTS.read_text(encoding="utf-8"))
    current = fingerprint()
    assert recorded.get(str(RULES_VERSION)) == current, (
        f"The engine's behaviour is not the one recorded for RULES_VERSION {RULES_VERSION} "
        f"(fingerprint now {current}). If the change is meant (a rule, a rejection's code or params, "
        f"an outcome, the legal actions' order, a deal): raise RULES_VERSION in service/engine/game.py "
        f"and clients/js/src/game.js (then `npm run types` there), add \"{RULES_VERSION + 1}\": "
        f"\"{current}\" to {FINGERPRINTS.relative_to(ROOT)}, make the JS engine match the new vectors "
        f"(tests/clients/test_js_engine.py) and say what changed in docs/CLIENTS.md. If it is not "
        f"meant, the engine has a regression."
    )
    assert list(recorded) == [str(version) for version in range(1, RULES_VERSION + 1)], "one entry per version"
    assert len(set(recorded.values())) == len(recorded), "each version behaves differently"


def test_the_javascript_package_plays_the_same_rules_version():
    declared = re.findall(r"^export const RULES_VERSION = (\d+);$", JS_GAME.read_text(encoding="utf-8"), re.M)
    assert declared == [str(RULES_VERSION)]
    types = (ROOT / "clients" / "js" / "types" / "game.d.ts").read_text(encoding="utf-8")
    assert f"export const RULES_VERSION: {RULES_VERSION};" in types
