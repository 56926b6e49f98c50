"""Errors that are the user's to fix.

A ``UserError`` carries a message that says what is wrong and how to fix it; the
CLI prints it and exits 2 without writing anything.
"""

from __future__ import annotations

import difflib
from typing import Iterable

__all__ = ["UserError", "nearest_names"]


class UserError(Exception):
    """Bad input: a scenario that does not load, a missing file, an unknown binding.

    ``near``: a word of the user's input the message is about (a binding's or an
    invariant's name), by which the line of the scenario file that wrote it can be found.
    """

    def __init__(self, message: str, *, near: str | None = None) -> None:
        super().__init__(message)
        self.near = near


def nearest_names(name: str, known: Iterable[str], *, what: str = "names") -> str:
    """The words a message ends with after an unknown ``name``: the closest known ones.

    ``"did you mean 'DB'? (the D1 bindings: DB, LOGS)"``, or ``"(the D1 bindings: none)"``.
    """
    candidates = sorted(set(known))
    listed = ", ".join(candidates) if candidates else "none"
    close = difflib.get_close_matches(name, candidates, n=3, cutoff=0.5)
    if not close and len(candidates) == 1:
        close = candidates
    guess = "did you mean " + " or ".join(repr(item) for item in close) + "? " if close else ""
    return f"{guess}({what}: {listed})"
