"""Puts this folder on sys.path, so every case's test imports the shared divergence.py."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
