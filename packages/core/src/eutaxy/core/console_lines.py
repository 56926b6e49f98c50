"""The Worker's console output for one run: lines kept beside the effect log, never in it.

A platform's runtime captures what the user's code logs (``console.log`` and its siblings
in a Worker) as lines ``{invocation, ordinal, time, level, text}``: the invocation whose
code logged (None outside every invocation), the last effect point that invocation had
opened when it logged (None before its first), the virtual time, the console method and
the arguments already formatted as one string. A line is not an effect point: it takes no
ordinal, no fault and no clock tick, so no plan, schedule or invariant depends on it. It
travels in the RunResult's ``console`` and in the verdict beside the trace it belongs to,
where the reports show it under the point it followed.
"""

from __future__ import annotations

import io
from typing import Any, Iterable, Mapping

import attrs

__all__ = ["CAPPED_LEVEL", "CAPTURED_CHARS_MAX", "CONSOLE_LEVELS", "CaptureStream", "ConsoleLine", "captured_text", "console_lines"]

#: The console methods a runtime captures, each its own level.
CONSOLE_LEVELS = ("log", "info", "warn", "error", "debug")
#: The level of the one line a runtime appends when its per-run cap dropped lines.
CAPPED_LEVEL = "capped"
#: Output a report keeps of one capture (an AWS handler's invocation, the scenario file's own
#: prints); the rest is cut, saying how much was (``captured_text``).
CAPTURED_CHARS_MAX = 16_384


@attrs.frozen(kw_only=True)
class ConsoleLine:
    """One console call of the user's code, in virtual time."""

    invocation: str | None
    #: The last point its invocation had opened; None before the first (or outside invocations).
    ordinal: int | None
    time: int
    level: str
    text: str

    def __attrs_post_init__(self) -> None:
        assert self.level in CONSOLE_LEVELS or self.level == CAPPED_LEVEL, self.level
        assert self.ordinal is None or self.ordinal >= 0, self.ordinal
        assert self.ordinal is None or self.invocation is not None, "an ordinal belongs to an invocation"

    def to_data(self) -> dict[str, Any]:
        return {
            "invocation": self.invocation,
            "ordinal": self.ordinal,
            "time": self.time,
            "level": self.level,
            "text": self.text,
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> "ConsoleLine":
        """Read one line; ``ValueError`` names the field that does not fit."""
        if not isinstance(data, Mapping):
            raise ValueError(f"a console line is an object, got {data!r}")
        invocation, ordinal, time, level, text = (data.get(k) for k in ("invocation", "ordinal", "time", "level", "text"))
        if invocation is not None and not isinstance(invocation, str):
            raise ValueError(f"console line: invocation must be a string or null, got {invocation!r}")
        if ordinal is not None and (isinstance(ordinal, bool) or not isinstance(ordinal, int) or ordinal < 0):
            raise ValueError(f"console line: ordinal must be a point ordinal or null, got {ordinal!r}")
        if isinstance(time, bool) or not isinstance(time, int):
            raise ValueError(f"console line: time must be an integer, got {time!r}")
        if level not in CONSOLE_LEVELS and level != CAPPED_LEVEL:
            raise ValueError(f"console line: level must be one of {', '.join(CONSOLE_LEVELS + (CAPPED_LEVEL,))}, got {level!r}")
        if not isinstance(text, str):
            raise ValueError(f"console line: text must be a string, got {text!r}")
        if ordinal is not None and invocation is None:
            raise ValueError("console line: an ordinal without an invocation")
        return cls(invocation=invocation, ordinal=ordinal, time=time, level=level, text=text)


def console_lines(data: Iterable[Any]) -> tuple[ConsoleLine, ...]:
    """Lines as given, or read from plain data."""
    return tuple(line if isinstance(line, ConsoleLine) else ConsoleLine.from_data(line) for line in data)


def captured_text(text: str) -> str:
    """Captured output as a report keeps it: at most CAPTURED_CHARS_MAX characters, then a line
    saying how many more were not kept."""
    if len(text) <= CAPTURED_CHARS_MAX:
        return text
    return text[:CAPTURED_CHARS_MAX] + f"\n[eutaxy: {len(text) - CAPTURED_CHARS_MAX} more characters not kept]\n"


class CaptureStream(io.TextIOBase):
    """A text stream that stands in for ``sys.stdout`` or ``sys.stderr`` while output is
    captured (an AWS handler's, the scenario file's own prints): write-only, UTF-8, no
    terminal, nothing held back to flush. A subclass's ``write`` says where the text goes."""

    def writable(self) -> bool:
        return True

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    @property
    def encoding(self) -> str:  # type: ignore[override]  # a read-only property where TextIO has an attribute
        return "utf-8"
