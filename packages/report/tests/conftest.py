"""Make the hand-made verdicts importable as ``report_verdicts`` from the tests."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
