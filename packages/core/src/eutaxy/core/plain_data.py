"""Whether a value is JSON data, and where it is not: the rule for what a scenario may hold.

A scenario crosses a process boundary as JSON (to the Node host, in every run plan) and is
compared by its canonical text, so everything in it, message bodies above all, must be
JSON data that survives the trip unchanged: ``None``, booleans, strings, integers, finite
floats, lists (tuples are written as lists) and dicts with string keys. Anything else is
the user's to fix, so the answer is a sentence naming the path to the offending value and
what it is, never a ``TypeError`` from deep inside a JSON encoder.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

__all__ = ["SAFE_INTEGER_MAX", "json_problem", "join_path", "str_tuple"]

#: Deeper than this is a cycle or a mistake; no scenario nests its data this far.
DEPTH_MAX = 200

_HINTS = {
    "set": "use a list",
    "frozenset": "use a list",
    "bytes": "use a string (for example base64 or .decode())",
    "bytearray": "use a string (for example base64 or .decode())",
    "datetime": "use an ISO string",
    "date": "use an ISO string",
    "Decimal": "use a string or a number",
}


def str_tuple(values: Iterable[Any]) -> tuple[str, ...]:
    """The values as a tuple of strings: the converter of a record's tuple-of-text fields (ids,
    sentences), so one built from a JSON list and one built in Python are equal."""
    return tuple(str(value) for value in values)


def join_path(path: str, step: str | int) -> str:
    """``body`` + ``items`` is ``body.items``; ``items`` + 0 is ``items[0]``."""
    if isinstance(step, int):
        return f"{path}[{step}]"
    if step.isidentifier():
        return f"{path}.{step}" if path else step
    return f"{path}[{step!r}]"


#: The largest integer a JavaScript number holds exactly (``Number.MAX_SAFE_INTEGER``).
SAFE_INTEGER_MAX = 2**53 - 1


def json_problem(value: Any, path: str = "", *, tuples: bool = True, safe_integers: bool = False) -> str | None:
    """The first reason ``value`` is not JSON data, as ``"<path>: <what>"``, or None.

    ``tuples``: whether a tuple counts as a list (JSON writes it as one). A caller that
    compares the value with what comes back from JSON passes False. ``safe_integers``: the
    value is read by JavaScript (a body sent to a Worker), so an integer beyond
    ``SAFE_INTEGER_MAX`` either way, which JSON.parse would round, is refused.
    """
    return _problem(value, path, tuples, (), safe_integers)


def _problem(item: Any, where: str, tuples: bool, open_containers: tuple[int, ...], safe_integers: bool = False) -> str | None:
    label = where or "the value"
    if item is None or isinstance(item, (bool, str)):
        return None
    if isinstance(item, int):
        if safe_integers and abs(item) > SAFE_INTEGER_MAX:
            return (f"{label}: {item} is beyond 2^53 - 1; JSON numbers above 2^53 lose precision in JavaScript; "
                    "pass a string")
        return None
    if isinstance(item, float):
        if math.isfinite(item):
            return None
        return f"{label}: {item!r} is not a JSON number; use a finite number, None or a string"
    is_list = isinstance(item, list) or (tuples and isinstance(item, tuple))
    if is_list or isinstance(item, dict):
        # Only a container met again inside itself is a cycle; one shared side by side is fine.
        if id(item) in open_containers:
            return f"{label}: the {type(item).__name__} contains itself"
        if len(open_containers) >= DEPTH_MAX:
            return f"{label}: nested more than {DEPTH_MAX} levels deep"
        inside = open_containers + (id(item),)
        if is_list:
            for index, element in enumerate(item):
                problem = _problem(element, join_path(where, index), tuples, inside, safe_integers)
                if problem is not None:
                    return problem
            return None
        for key, element in item.items():
            if not isinstance(key, str):
                return f"{label}: key {key!r} ({type(key).__name__}) is not a string; JSON object keys are strings"
            problem = _problem(element, join_path(where, key), tuples, inside, safe_integers)
            if problem is not None:
                return problem
        return None
    kind = type(item).__name__
    hint = _HINTS.get(kind, "use dicts, lists, strings, numbers, booleans or None")
    shown = repr(item)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return f"{label}: {shown} ({kind}) is not JSON data; {hint}"
