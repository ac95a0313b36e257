"""Import paths for the engine tests.

``service`` must be importable when pytest runs from a checkout without installing
it, and the test modules share ``engine_helpers`` (hand-built positions).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
for path in (str(HERE.parents[1]), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

import pytest  # noqa: E402

pytest.register_assert_rewrite("engine_helpers")
