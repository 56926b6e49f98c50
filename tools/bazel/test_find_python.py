"""find_python.sh picks Python 3.11+ and, when none will do, fails naming every candidate tried.

The interpreters here are small shell scripts that answer the probe as an old or a broken
Python would, on a PATH of their own, so the test needs nothing of the machine's Pythons.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

# Not resolved: under Bazel this is the runfiles tree, where the script is the test's data.
SCRIPT = Path(__file__).absolute().parent / "find_python.sh"


def fake(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


def find(folder: Path, **environment: str) -> subprocess.CompletedProcess:
    """find_python.sh on a PATH of ``folder`` and the two tools it uses, with no real Python."""
    tools = folder / "tools"
    tools.mkdir(exist_ok=True)
    for tool in ("sed", "tail"):
        if not (tools / tool).exists():
            (tools / tool).symlink_to(shutil.which(tool))
    env = {"PATH": f"{folder}:{tools}", **environment}
    return subprocess.run(["/bin/sh", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)


def test_no_suitable_interpreter_fails_naming_each_candidate(tmp_path):
    """An old python3, a broken python3.12, nothing else: exit 1 and what each one was."""
    fake(tmp_path, "python3", 'echo "version=3.10.4"; exit 3')
    fake(tmp_path, "python3.12", 'echo "Segmentation fault" >&2; exit 139')
    found = find(tmp_path)
    assert 1 == found.returncode, found.stdout
    assert "" == found.stdout
    assert "no Python 3.11 or newer for Eutaxy" in found.stderr
    assert "python3: Python 3.10.4, older than 3.11" in found.stderr
    assert "python3.12: does not run: Segmentation fault" in found.stderr
    assert "python3.11: not found on PATH" in found.stderr
    assert "EUTAXY_PYTHON" in found.stderr


def test_eutaxy_python_is_the_only_candidate_when_set(tmp_path):
    """EUTAXY_PYTHON names the interpreter; a good one is described, a missing one is refused."""
    described = find(tmp_path, EUTAXY_PYTHON=sys.executable)
    assert 0 == described.returncode, described.stderr
    lines = dict(line.split("=", 1) for line in described.stdout.splitlines())
    assert os.path.realpath(sys.executable) == lines["python"]
    assert "%d.%d.%d" % sys.version_info[:3] == lines["version"]
    assert 64 == len(lines["sha256"])
    missing = find(tmp_path, EUTAXY_PYTHON=str(tmp_path / "nope"))
    assert 1 == missing.returncode
    assert f"{tmp_path / 'nope'}: not found on PATH" in missing.stderr
