"""Errors that are the user's to fix.

A ``UserError`` carries a message that says what is wrong and how to fix it; the
CLI prints it and exits 2 without writing anything. A ``SettingError`` is one whose cause
is no part of the scenario file (an environment variable Eutaxy reads), so no scenario
file or line is put in front of it.
"""

from __future__ import annotations

import difflib
from typing import Iterable

__all__ = ["SettingError", "UserError", "error_message", "error_text", "nearest_names"]


class UserError(Exception):
    """Bad input: a scenario that does not load, a missing file, an unknown binding.

    ``near``: a word of the user's input the message is about (a binding's or an
    invariant's name), by which the line of the scenario file that wrote it can be found.
    """

    def __init__(self, message: str, *, near: str | None = None) -> None:
        super().__init__(message)
        self.near = near


class SettingError(UserError):
    """Bad input outside the scenario file: an environment variable Eutaxy reads
    (``EUTAXY_HANDLER_MEMORY_MB``, ``EUTAXY_DYNAMODB_ENDPOINT``). Its message names the
    variable; ``eutaxy.engine.scenario_file.locate`` puts no scenario line in front of it."""


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


def error_message(error: BaseException) -> str:
    """``str(error)``, or what stands in for it when the user's exception cannot be put in words.

    A user's exception class may define a ``__str__`` that raises; the answer still names
    the exception (``<its str() raised ValueError: ...>``) instead of failing on it.
    """
    try:
        return str(error)
    except Exception as inner:  # noqa: BLE001 - any failure of the user's __str__ is theirs
        try:
            detail = f"{type(inner).__name__}: {inner}"
        except Exception:  # noqa: BLE001 - the inner one's str() may raise as well
            detail = type(inner).__name__
        return f"<its str() raised {detail}>"


def error_text(error: BaseException) -> str:
    """``Type: message`` for an exception the user's code raised, whatever its ``__str__`` does."""
    message = error_message(error)
    return f"{type(error).__name__}: {message}" if message else type(error).__name__
