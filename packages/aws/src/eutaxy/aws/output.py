"""The handler's output (print, logging, a structured logger), captured per invocation.

Lambda sends a function's stdout and stderr to its log, never to the caller. Here the
checker's own stdout carries the report (one JSON object under ``--json``), so while the
handler is imported and while a run is in progress ``sys.stdout`` and ``sys.stderr`` are
replaced by streams that write to the invocation's capture. A logging handler made at
import time (``logging.StreamHandler(sys.stdout)``, as structured loggers make theirs)
keeps the stream it was given, so it is one of these streams and its records land in the
capture too. What is written outside an invocation, or from another thread, goes to the
real stderr.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from typing import Any, Iterator

import attrs

from eutaxy.core.console_lines import CAPTURED_CHARS_MAX, CaptureStream, captured_text
from eutaxy.engine.runloop import CallOutcome, RunLoop

__all__ = ["CAPTURED_CHARS_MAX", "Output"]


class _Stream(CaptureStream):
    """A text stream writing to the owner's capture when one is open on this thread."""

    def __init__(self, owner: "Output", name: str) -> None:
        super().__init__()
        self._owner = owner
        self.name = name

    def write(self, text: str) -> int:
        return self._owner.write(text)


@attrs.define(eq=False)
class Output:
    """The replacement streams of one platform and the capture open now, if any."""

    _buffer: list[str] | None = None
    _thread: int | None = None
    _streams: tuple[Any, Any] | None = None

    def write(self, text: str) -> int:
        if self._buffer is not None and threading.get_ident() == self._thread:
            self._buffer.append(str(text))
        else:
            sys.__stderr__.write(str(text))
        return len(text)

    @contextlib.contextmanager
    def installed(self) -> Iterator["Output"]:
        """Replace ``sys.stdout`` and ``sys.stderr`` for the block."""
        if self._streams is None:
            self._streams = (_Stream(self, "<stdout>"), _Stream(self, "<stderr>"))
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = self._streams
        try:
            yield self
        finally:
            sys.stdout, sys.stderr = saved

    @contextlib.contextmanager
    def capture(self) -> Iterator[list[str]]:
        """Collect what this thread writes in the block."""
        assert self._buffer is None, "output capture is not reentrant"
        buffer: list[str] = []
        self._buffer, self._thread = buffer, threading.get_ident()
        try:
            yield buffer
        finally:
            self._buffer, self._thread = None, None

    def call(self, loop: RunLoop, handler: Any, event: Any, context: Any) -> tuple[CallOutcome, str]:
        """The handler call with its output captured: ``(outcome, text)``."""
        with self.capture() as buffer:
            outcome = loop.call(handler, event, context)
        return outcome, captured_text("".join(buffer))
