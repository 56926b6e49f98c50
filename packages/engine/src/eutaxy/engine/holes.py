"""Holes: the parts of a drafted scenario its author has still to write.

``eutaxy draft`` writes a scenario file it cannot finish: what must hold and which events
to send are the author's to say. It marks each such place with ``todo("invariants",
"what must hold ...")``, a value no helper accepts as data, and a platform's
``define_scenario`` hands its fields to :func:`refuse_holes` before anything else, so a
draft whose holes are not filled never loads, never checks and never passes: loading it
is a ``UserError`` (exit 2) naming every hole left, with the line the draft wrote it on.

A hole is not JSON data, so even a scenario built around the helpers (a hand-written dict
holding one) is refused by the loader's plain-data check rather than sent to a runtime.
The helpers that take a list of events (a queue's messages, an http drive's requests)
and a setup step's file pass a hole through untouched for this function to find.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Mapping

import attrs

from eutaxy.core.errors import UserError

__all__ = ["Hole", "find_holes", "refuse_holes", "todo"]

#: How deep into a scenario's fields the search for holes goes: a scenario is a few levels
#: of dicts and lists (drive, events, body); deeper data is a body's own, never a hole.
_DEPTH_MAX = 8

#: The most values looked at: a scenario with a huge message list is searched no further.
_VALUES_MAX = 100_000


@attrs.frozen(kw_only=True)
class Hole:
    """A place in a scenario file still to be written: its name, what goes there, its line."""

    #: What the hole stands for: ``invariants``, ``events``, ``schema``, ``drive``.
    name: str
    #: What to write there, as the draft says it.
    hint: str
    #: The file name and line of the ``todo(...)`` call (``shop.sim.py:31``), when Python
    #: could tell.
    where: str | None

    def __attrs_post_init__(self) -> None:
        assert self.name, "a hole has a name"

    def describe(self) -> str:
        place = f"{self.where}: " if self.where else ""
        return f"{place}TODO({self.name}): {self.hint}" if self.hint else f"{place}TODO({self.name})"


def todo(name: str, hint: str = "") -> Hole:
    """A hole named ``name`` (``"invariants"``, ``"events"``) with what to write there.

    Loading a scenario that still holds one fails (exit 2), naming it and its line.
    """
    if not isinstance(name, str) or not name:
        raise UserError(f"todo: name must say what is missing, such as 'invariants', got {name!r}")
    if not isinstance(hint, str):
        raise UserError(f"todo({name!r}): hint must be a sentence, got {hint!r}")
    caller = sys._getframe(1)
    filename = caller.f_code.co_filename
    where = None if filename.startswith("<") else f"{os.path.basename(filename)}:{caller.f_lineno}"
    return Hole(name=name, hint=hint, where=where)


def find_holes(fields: Mapping[str, Any]) -> list[Hole]:
    """Every hole in ``fields``, in the order the fields and their items are given."""
    holes: list[Hole] = []
    pending: list[tuple[Any, int]] = [(value, 0) for value in reversed(list(fields.values()))]
    visited = 0
    while pending and visited < _VALUES_MAX:
        value, depth = pending.pop()
        visited += 1
        if isinstance(value, Hole):
            holes.append(value)
        elif depth < _DEPTH_MAX and isinstance(value, Mapping):
            pending.extend((item, depth + 1) for item in reversed(list(value.values())))
        elif depth < _DEPTH_MAX and isinstance(value, (list, tuple)):
            pending.extend((item, depth + 1) for item in reversed(value))
    return holes


def refuse_holes(fields: Mapping[str, Any], where: str = "define_scenario") -> None:
    """Refuse a scenario that still holds a hole, naming each one left.

    Raises:
        UserError: one or more ``todo(...)`` values are among ``fields`` (searched a few
            levels deep).
    """
    holes = find_holes(fields)
    if not holes:
        return
    count = "a hole" if len(holes) == 1 else f"{len(holes)} holes"
    listed = "; ".join(hole.describe() for hole in holes)
    raise UserError(
        f"{where}: this scenario is a draft with {count} still to fill: {listed}. Write what each asks for "
        "in place of its todo(...) (the comments beside it give examples), then check it again"
    )
