"""The progress line a long exploration shows on a terminal.

One line, rewritten in place: runs so far, faults injected, and elapsed time against the
budget. It goes to stderr, and only when stderr is a terminal and the output is not JSON,
so logs, pipes and CI stay quiet. Elapsed time appears here and never in a verdict, which
must not depend on the wall clock.
"""

from __future__ import annotations

from typing import TextIO

__all__ = ["ProgressLine"]

_CLEAR = "\r\x1b[K"


class ProgressLine:
    """An ``on_progress`` callback for ``check_scenario`` that draws one terminal line."""

    __slots__ = ("_stream", "_drawn")

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._drawn = False

    def __call__(self, progress: dict) -> None:
        self._stream.write(_CLEAR + progress_text(progress))
        self._stream.flush()
        self._drawn = True

    def finish(self) -> None:
        """Erase the line, so the report starts on a clean terminal."""
        if self._drawn:
            self._stream.write(_CLEAR)
            self._stream.flush()
            self._drawn = False


def progress_text(progress: dict) -> str:
    """``runs 17  faults 9  1.2s / 2.0s budget`` from the engine's progress data."""
    runs = progress.get("runs", 0)
    faults = progress.get("faults", 0)
    text = f"eutaxy: runs {runs}  faults {faults}"
    elapsed = progress.get("elapsedMs")
    if isinstance(elapsed, (int, float)):
        text += f"  {elapsed / 1000:.1f}s"
        budget = progress.get("budgetMs")
        if isinstance(budget, (int, float)) and budget > 0:
            text += f" / {budget / 1000:.1f}s budget"
    return text
