"""Where a command's words go: the result on stdout, problems on stderr.

Under ``--json`` stdout holds exactly one canonical JSON object (with ``schemaVersion``
and a ``kind``), whether the command succeeded or not, so a consumer always has one
object to parse; the human sentence for a problem still goes to stderr.
"""

from __future__ import annotations

from typing import TextIO

from eutaxy.report.json import error_report, render_json

__all__ = ["Output"]


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
