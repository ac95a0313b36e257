"""The play page's ES modules import every name they use and nothing they leave unused.

No build step checks this, and a missing import only fails in a browser, at the moment
the code that needs it runs; ``tsc --checkJs`` reads the modules as they are served.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from tests.contract.tools import NODE_ENV, node_tool

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "service" / "web" / "static"
#: Served as /static/engine/ (service/web/__init__.py): the page imports "./engine/index.js".
ENGINE = ROOT / "clients" / "js" / "src"
#: Unknown names, missing modules or exports, unused imports and locals.
NAME_ERRORS = re.compile(r"error TS(2304|2305|2307|2552|2724|6133|6192):")


def test_every_module_imports_what_it_uses_and_uses_what_it_imports(tmp_path):
    # the modules laid out as the browser sees them: the engine's under engine/
    served = tmp_path / "static"
    shutil.copytree(STATIC, served, ignore=shutil.ignore_patterns("*.png", "*.css", "*.html"))
    shutil.copytree(ENGINE, served / "engine")
    checked = subprocess.run(
        [node_tool("tsc"), "--allowJs", "--checkJs", "--noEmit", "--noUnusedLocals", "--target", "es2022",
         "--module", "es2022", "--moduleResolution", "bundler", "--lib", "es2022,dom,dom.iterable",
         str(served / "app.js"), str(served / "sw.js")],
        capture_output=True, text=True, env=NODE_ENV, timeout=300,
    )
    errors = [line for line in checked.stdout.splitlines() if NAME_ERRORS.search(line)]
    assert not errors, "\n".join(errors)
    assert not re.search(r"error TS5\d{3}", checked.stdout), checked.stdout  # the options were read: it ran
