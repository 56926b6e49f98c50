"""One Lean run over a process boundary: the emitted file in a temporary folder, ``lean --json``, a deadline.

Lean checks the whole module in one run and prints one JSON message per line
(``severity``, ``pos.line``, ``pos.column``, ``data``). A run past the deadline
is killed with its whole process group and reported as such; the engine calls
that gave_up. Nothing here reads the messages' meaning: :mod:`.answers` maps
them back to the properties.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import Optional

import attrs

#: The file name Lean is given (a module name Lean accepts; the folder is a fresh temporary one).
FILE_NAME = "EutaxyModule.lean"
#: How much of Lean's stderr a report keeps.
STDERR_KEPT_CHARS = 2000


@attrs.frozen(kw_only=True)
class Message:
    """One message Lean printed: ``severity`` is error, warning or information; ``line`` is 1-based (0: none)."""

    severity: str
    line: int
    column: int
    text: str


@attrs.frozen(kw_only=True)
class LeanRun:
    """What one run of Lean answered, or that it did not finish."""

    messages: tuple[Message, ...]
    timed_out: bool
    returncode: Optional[int]
    stderr: str
    #: Output lines that were not Lean's JSON messages (kept, never read as verdicts).
    unparsed: tuple[str, ...] = ()


def parse_messages(stdout: str) -> tuple[tuple[Message, ...], tuple[str, ...]]:
    """Lean's ``--json`` output as messages; lines that are not one message are returned apart."""
    messages, unparsed = [], []
    for raw in stdout.splitlines():
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
            pos = data.get("pos") or {}
            messages.append(Message(severity=str(data["severity"]), line=int(pos.get("line", 0)),
                                    column=int(pos.get("column", 0)), text=str(data.get("data", ""))))
        except (ValueError, KeyError, TypeError, AttributeError):
            unparsed.append(raw)
    return tuple(messages), tuple(unparsed)


def run_lean(lean: Path, text: str, deadline_s: float) -> LeanRun:
    """Check ``text`` with ``lean --json`` in a temporary folder; kill it (and its children) at the deadline."""
    with tempfile.TemporaryDirectory(prefix="eutaxy-lean-") as folder:
        path = Path(folder) / FILE_NAME
        path.write_text(text, encoding="utf-8")
        process = subprocess.Popen([str(lean), "--json", str(path)], cwd=folder, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
                                   errors="replace", start_new_session=True)
        try:
            stdout, stderr = process.communicate(timeout=deadline_s)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            stdout, stderr = process.communicate()
            return LeanRun(messages=(), timed_out=True, returncode=process.returncode,
                           stderr=stderr[-STDERR_KEPT_CHARS:])
    messages, unparsed = parse_messages(stdout)
    return LeanRun(messages=messages, timed_out=False, returncode=process.returncode,
                   stderr=stderr[-STDERR_KEPT_CHARS:], unparsed=unparsed)


def _kill_group(process: subprocess.Popen[str]) -> None:
    """Kill Lean and anything it started (its own session, so nothing of Eutaxy's is touched)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError):
        process.kill()
