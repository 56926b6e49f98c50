"""Where a command's words go: the result on stdout, problems on stderr.

Under ``--json`` stdout holds exactly one canonical JSON object (with ``schemaVersion``
and a ``kind``), whether the command succeeded or not, so a consumer always has one
object to parse; the human sentence for a problem still goes to stderr. What the user's
scenario file prints to stdout (``ScenarioPrints``) is captured into the report, never
mixed into stdout.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from typing import Iterator, TextIO

from eutaxy.core.console_lines import CaptureStream, captured_text
from eutaxy.report.json import error_report, render_json

__all__ = ["Output", "ScenarioPrints"]


class Output:
    """The streams of one command invocation and whether it speaks JSON."""

    __slots__ = ("stdout", "stderr", "json", "_printed")

    def __init__(self, stdout: TextIO, stderr: TextIO, *, json: bool) -> None:
        self.stdout = stdout
        self.stderr = stderr
        self.json = json
        self._printed = False

    def report(self, data: dict, *, kind: str | None = None, text: str | None = None) -> None:
        """Print a command's result: its JSON object, or its text."""
        if self.json:
            self._print_object(render_json(data, kind=kind))
        elif text is not None:
            self.stdout.write(text if text.endswith("\n") else text + "\n")
            self.stdout.flush()

    def note(self, text: str) -> None:
        """A line for the person at the terminal (stderr, never mixed into JSON)."""
        self.stderr.write(text.rstrip("\n") + "\n")
        self.stderr.flush()

    def error(self, message: str, *, kind: str = "error") -> None:
        """Report a command that could not run: stderr always, and one object under --json."""
        self.note(f"eutaxy: error: {message}")
        if self.json and not self._printed:
            self._print_object(render_json(error_report(message, kind=kind)))

    def _print_object(self, text: str) -> None:
        assert not self._printed, "a --json command prints exactly one object"
        self.stdout.write(text + "\n")
        self.stdout.flush()
        self._printed = True


class ScenarioPrints(CaptureStream):
    """``sys.stdout`` while ``check`` runs: what the scenario file prints as it is imported (or
    from a thread it started) is kept for the report (``scenarioOutput``), so stdout holds the
    report alone. (The Worker's console and an AWS handler's output are captured by their
    runtimes; the report has them as console lines and the trace's output points.)

    ``capturing`` installs it for a block; ``claim`` takes the text for the report. Text not
    claimed when the block ends (the check stopped with an error) goes to ``spill`` (stderr),
    so the user still sees it beside the error.
    """

    def __init__(self, spill: TextIO) -> None:
        super().__init__()
        self._spill = spill
        self._parts: list[str] = []
        self._lock = threading.Lock()
        self._replaced: TextIO | None = None

    def write(self, text: str) -> int:
        with self._lock:
            self._parts.append(str(text))
        return len(text)

    @contextlib.contextmanager
    def capturing(self) -> Iterator["ScenarioPrints"]:
        self._replaced = sys.stdout
        sys.stdout = self
        try:
            yield self
        finally:
            sys.stdout = self._replaced
            self._replaced = None
            left = self.claim()
            if left is not None:
                self._spill.write(left if left.endswith("\n") else left + "\n")
                self._spill.flush()

    def claim(self) -> str | None:
        """What was printed since the last claim (cut to the report's size), or None when nothing was."""
        with self._lock:
            text = "".join(self._parts)
            self._parts.clear()
        return captured_text(text) if text else None
