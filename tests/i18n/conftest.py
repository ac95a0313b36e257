"""Import path for the catalog tests: ``service`` must import from a checkout without installing it."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
