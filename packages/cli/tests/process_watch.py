"""What the signal tests share: polling for a state with a bound, and a process's children."""

from __future__ import annotations

import glob
import time
from pathlib import Path

import pytest

#: How long a test waits for a state it polls for (a child running, the processes gone).
PATIENCE_S = 120


def wait_for(condition, what):
    """Poll ``condition`` until it gives something true, for at most PATIENCE_S; fail naming ``what``."""
    deadline = time.monotonic() + PATIENCE_S
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.05)
    pytest.fail(f"gave up waiting for {what}")


def children(pid: int) -> dict[int, bytes]:
    """The processes whose parent is ``pid``, with their command lines."""
    found = {}
    for entry in glob.glob("/proc/[0-9]*/stat"):
        try:
            text = Path(entry).read_text()
            command = Path(entry).with_name("cmdline").read_bytes()
        except OSError:
            continue
        fields = text[text.rfind(")") + 2:].split()
        if int(fields[1]) == pid:
            found[int(text.split()[0])] = command
    return found
