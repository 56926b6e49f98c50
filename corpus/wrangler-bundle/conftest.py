"""Puts this folder on sys.path, so the test imports the shared wrangler_side.py."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
