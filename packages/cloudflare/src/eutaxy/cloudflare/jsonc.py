"""JSON with comments, as wrangler reads it.

Wrangler accepts ``//`` and ``/* */`` comments and trailing commas in
``wrangler.jsonc`` (and in ``wrangler.json``). Rather than carry a parser of our
own, this module blanks those out and hands the rest to :mod:`json`. Each
comment character and each trailing comma becomes a space, and newlines stay
where they are, so the line and column in a :class:`json.JSONDecodeError`
still point into the file the user wrote.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["JsoncError", "loads", "strip"]


class JsoncError(ValueError):
    """A JSONC text that does not parse; ``line`` and ``column`` count from 1."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"line {line} column {column}: {message}")
        self.problem = message
        self.line = line
        self.column = column


def loads(text: str) -> Any:
    """Parse JSONC ``text``; raise :class:`JsoncError` naming the line and column."""
    stripped = strip(text)
    try:
        return json.loads(stripped)
    except json.JSONDecodeError as error:
        raise JsoncError(error.msg, error.lineno, error.colno) from None


def strip(text: str) -> str:
    """Return ``text`` with comments and trailing commas replaced by spaces."""
    chars = list(text)
    length = len(chars)
    index = 0
    # The index of the last comma seen outside a string, or -1 once any other
    # significant character follows it; a comma still pending when `}` or `]`
    # arrives is a trailing comma.
    pending_comma = -1
    while index < length:
        char = chars[index]
        if char == '"':
            pending_comma = -1
            index = _skip_string(chars, index)
            continue
        if char == "/" and index + 1 < length and chars[index + 1] == "/":
            while index < length and chars[index] != "\n":
                chars[index] = " "
                index += 1
            continue
        if char == "/" and index + 1 < length and chars[index + 1] == "*":
            start = index
            index += 2
            while index < length and not (chars[index] == "*" and index + 1 < length and chars[index + 1] == "/"):
                index += 1
            if index >= length:
                line, column = _position(text, start)
                raise JsoncError("unterminated /* comment", line, column)
            for blank in range(start, index + 2):
                if chars[blank] != "\n":
                    chars[blank] = " "
            index += 2
            continue
        if char == ",":
            pending_comma = index
        elif char in "}]":
            if pending_comma >= 0:
                chars[pending_comma] = " "
            pending_comma = -1
        elif not char.isspace():
            pending_comma = -1
        index += 1
    return "".join(chars)


def _skip_string(chars: list[str], start: int) -> int:
    """Return the index just past the string literal opening at ``start``."""
    index = start + 1
    while index < len(chars):
        if chars[index] == "\\":
            index += 2
            continue
        if chars[index] == '"':
            return index + 1
        if chars[index] == "\n":
            # Leave the newline to json, which reports the bad string itself.
            return index
        index += 1
    return index


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, column
