"""A TypeScript client typed by openapi-typescript compiles with ``tsc --strict`` and plays.

contract/client-check.ts deals, sends a legal move back as it came and describes a
rejection through a ``switch`` over every problem code that the compiler checks for
exhaustiveness; compiled here against types generated afresh from openapi.yaml, then run
with Node against a live server.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from tests.contract.tools import CONTRACT, NODE_ENV, OPENAPI, node_tool

SCRIPT = CONTRACT / "client-check.ts"


def test_no_non_null_assertions():
    code = re.sub(r"//.*|/\*.*?\*/", "", SCRIPT.read_text(encoding="utf-8"), flags=re.S)
    assert not re.search(r"[\w)\]]!(?=[.\[),;\s])(?!=)", code), "non-null assertion in client-check.ts"


# The contract does not depend on the database: one backend is enough.
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_typescript_client_compiles_strict_and_plays(live_server, tmp_path):
    generate = subprocess.run([node_tool("openapi-typescript"), str(OPENAPI), "-o", str(tmp_path / "openapi.d.ts")],
                              env=NODE_ENV, capture_output=True, text=True, timeout=300)
    assert generate.returncode == 0, generate.stdout + generate.stderr
    shutil.copy(SCRIPT, tmp_path / "client-check.ts")
    (tmp_path / "base.ts").write_text(f"export const BASE_URL = {json.dumps(live_server)};\n", encoding="utf-8")
    compile_ = subprocess.run([node_tool("tsc"), "--strict", "--noUnusedLocals", "--target", "es2022",
                               "--module", "commonjs", "--lib", "es2022,dom", "--skipLibCheck", "--outDir",
                               str(tmp_path / "out"), str(tmp_path / "client-check.ts")],
                              env=NODE_ENV, capture_output=True, text=True, timeout=300)
    assert compile_.returncode == 0, compile_.stdout + compile_.stderr
    run = subprocess.run(["node", str(tmp_path / "out" / "client-check.js")], env=NODE_ENV,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    outcome = json.loads(run.stdout)
    assert outcome["columns"] == 7 and outcome["spades"] == 0 and outcome["version"] == 1
    assert outcome["moved"] and outcome["status"] == 422 and outcome["described"] == "SOURCE_EMPTY at waste"
    # a whole game through syncActions, to the win, with a batch's 422 and 412 on the way
    assert outcome["synced"] == "won" and outcome["batches"] > 1
