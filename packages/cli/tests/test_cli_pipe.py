"""A reader that closes ``eutaxy``'s stdout early (``eutaxy check ... | head -1``) ends it quietly.

As a Unix tool killed by SIGPIPE: exit 141, no traceback, no "Exception ignored" from
Python's last flush, and never exit 3 (a closed pipe is no bug in Eutaxy).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BASE = Path(__file__).parent / "bad_inputs" / "base" / "aws"


@pytest.mark.parametrize("argv, codes", [
    # argparse drops a help text it cannot write, so nothing is left to fail: 0 is as quiet.
    (["--help"], {0, 141}),
    (["check", "scenario.sim.py", "--max-runs", "3", "--no-regression"], {141}),
    (["check", "scenario.sim.py", "--max-runs", "3", "--no-regression", "--json"], {141}),
], ids=["help", "check", "check-json"])
def test_a_closed_stdout_ends_quietly(argv, codes, tmp_path):
    project = tmp_path / "project"
    shutil.copytree(BASE, project)
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    command = subprocess.Popen([sys.executable, "-m", "eutaxy.cli", *argv], cwd=project, env=environment,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert command.stdout is not None and command.stderr is not None
    command.stdout.close()  # the reader goes away before anything is printed
    stderr = command.stderr.read().decode()
    command.wait(timeout=300)
    assert command.returncode in codes, stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    assert sorted(path.name for path in project.iterdir()) == sorted(path.name for path in BASE.iterdir())
