"""Code excerpts: the lines of the user's own file around each place a report names.

An effect's ``source`` and an uncaught error's ``at`` name a file relative to the project's
folder and a line in it. A report that shows the code (the HTML page) reads the lines around
it from the user's file at render time, so the verdict's JSON never copies the user's code;
the page holds what the file held when it was rendered. A file that cannot be read (moved,
outside the project, not UTF-8) gives an excerpt with no lines, which the report says.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

import attrs

__all__ = ["EXCERPT_CONTEXT_LINES", "Excerpt", "excerpts", "place_of"]

#: Lines shown on each side of the named line: enough for the statement and its guard.
EXCERPT_CONTEXT_LINES = 3
#: A line longer than this is cut (minified code would fill the page with one line).
EXCERPT_LINE_CHARS_MAX = 200
#: A file larger than this is not read: a report's excerpt is never worth reading a bundle.
EXCERPT_FILE_BYTES_MAX = 4 * 1024 * 1024


@attrs.frozen(kw_only=True)
class Excerpt:
    """The lines around ``file:line``: ``(number, text)`` pairs, empty when the file could not be read."""

    file: str
    line: int
    lines: tuple[tuple[int, str], ...] = ()

    @property
    def place(self) -> str:
        return f"{self.file}:{self.line}"


def place_of(text: str) -> tuple[str, int] | None:
    """``src/index.ts:12`` as ``("src/index.ts", 12)``; None for text that names no line."""
    file, sep, line = text.rpartition(":")
    if not sep or not file or not line.isdigit() or int(line) < 1:
        return None
    return file, int(line)


def excerpts(places: Iterable[tuple[str, int]], root: str | Path | None) -> list[Excerpt]:
    """One excerpt per distinct place, ordered by file then line, read from ``root`` (None: none read)."""
    files: dict[str, list[str] | None] = {}
    found = []
    for file, line in sorted(set(places)):
        if file not in files:
            files[file] = _read(Path(root) / file) if root is not None else None
        text = files[file]
        if text is None or line > len(text):
            found.append(Excerpt(file=file, line=line))
            continue
        first = max(1, line - EXCERPT_CONTEXT_LINES)
        last = min(len(text), line + EXCERPT_CONTEXT_LINES)
        found.append(Excerpt(file=file, line=line, lines=tuple((number, _cut(text[number - 1])) for number in range(first, last + 1))))
    return found


def _read(path: Path) -> list[str] | None:
    try:
        if not path.is_file() or path.stat().st_size > EXCERPT_FILE_BYTES_MAX:
            return None
        return path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None


def _cut(line: str) -> str:
    line = line.rstrip()
    return line if len(line) <= EXCERPT_LINE_CHARS_MAX else line[: EXCERPT_LINE_CHARS_MAX - 1] + "…"
