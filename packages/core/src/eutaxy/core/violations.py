"""The Violation record and the phrases its messages are built from.

A violation names the invariant, the keys (canonical JSON) and the log indices it rests
on, so the shrinker can ask "same invariant, same keys?" and a report can print the
effects; its message is written for the user to act on.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence, TypeVar

import attrs

from eutaxy.core.canonical import to_json
from eutaxy.core.effects import Effect
from eutaxy.core.selectors import COMPARISON_OPS

__all__ = [
    "Violation",
    "count_word",
    "describe_effects",
    "describe_selector",
    "effects_label",
    "join_words",
    "others_too",
    "plural",
    "shared_message",
    "shared_values",
    "violation_of",
]

T = TypeVar("T")


@attrs.frozen
class Violation:
    """An invariant that did not hold on a run's log.

    ``keys`` are canonical JSON strings; ``effects`` are indices into the log checked;
    ``rows`` are the snapshot rows at fault (state invariants). ``invariant_kind`` is the
    broken invariant's kind (``at_most_once_per_key``), named apart from a verdict's ``kind``.
    """

    invariant: str
    invariant_kind: str
    keys: list = attrs.field(factory=list)
    effects: list = attrs.field(factory=list)
    rows: list = attrs.field(factory=list)
    message: str = ""

    def to_data(self) -> dict[str, Any]:
        return {
            "invariant": self.invariant,
            "invariantKind": self.invariant_kind,
            "keys": list(self.keys),
            "effects": list(self.effects),
            "rows": list(self.rows),
            "message": self.message,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "Violation":
        return cls(
            invariant=data["invariant"],
            invariant_kind=data["invariantKind"],
            keys=list(data.get("keys") or []),
            effects=list(data.get("effects") or []),
            rows=list(data.get("rows") or []),
            message=data.get("message", ""),
        )


def violation_of(
    invariant: dict[str, Any], message: str, *, keys: Sequence[str] = (), effects: Sequence[int] = (), rows: Sequence[Any] = ()
) -> Violation:
    """The violation of ``invariant`` (its name and kind) that ``message`` explains."""
    return Violation(
        invariant=invariant["name"],
        invariant_kind=invariant["kind"],
        keys=list(keys),
        effects=list(effects),
        rows=list(rows),
        message=message,
    )


_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}


def count_word(count: int) -> str:
    return _WORDS.get(count, str(count))


def plural(noun: str, count: int) -> str:
    """``noun`` for one, ``noun`` with an ``s`` for any other count (the nouns messages count are regular)."""
    return noun if count == 1 else noun + "s"


def join_words(words: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def others_too(label: str, keys: Sequence[str], verb: str = "") -> str:
    """What a message adds after the first key it names: `` (keys "b" and "c" are shared too)``,
    with ``label`` and ``verb`` as the invariant says them; nothing when there is no other key."""
    if len(keys) <= 1:
        return ""
    return f" ({label} {join_words(keys[1:])}{' ' + verb if verb else ''} too)"


def shared_values(groups: Mapping[str, Sequence[T]]) -> list[tuple[str, Sequence[T]]]:
    """The values more than one member holds (effects sharing a key, rows sharing a column value),
    each with its members, in order of first sight."""
    return [(text, members) for text, members in groups.items() if len(members) > 1]


def shared_message(invariant: dict[str, Any], shared: Sequence[tuple[str, Sequence[T]]], label: str, says: Callable[[str, Sequence[T]], str]) -> str:
    """A "no two share a value" invariant's message: the first shared value as ``says`` words it,
    then the other shared values by ``label``."""
    first_text, first_members = shared[0]
    return f"{invariant['name']}: {says(first_text, first_members)}" + others_too(label, [text for text, _ in shared], "are shared")


def describe_effects(effects: Sequence[Effect], indices: Iterable[int]) -> str:
    """``msg-1#1 effect #0 and msg-1#2 effect #0``."""
    return join_words([effects[index].describe() for index in indices])


def effects_label(effects: Sequence[Effect], indices: Iterable[int]) -> str:
    """What a group of effects is called: ``D1:DB run`` when they share target and op."""
    chosen = [effects[index] for index in indices]
    targets = {effect.target for effect in chosen}
    ops = {effect.op for effect in chosen}
    if len(targets) == 1 and len(ops) == 1:
        return f"{chosen[0].target} {chosen[0].op}"
    if len(targets) == 1:
        return chosen[0].target
    return "selected"


def describe_selector(selector: dict[str, Any]) -> str:
    """``D1:DB run|batch result`` for messages that name what was looked for."""
    target = selector.get("target") or "any target"
    op = selector.get("op")
    if op is None:
        op_text = "any op"
    elif isinstance(op, str):
        op_text = op
    else:
        op_text = "|".join(op)
    kind = selector.get("kind") or "any kind"
    text = f"{target} {op_text} {kind}"
    where = selector.get("where")
    if where:
        text += " where " + ", ".join(f"{path} {_describe_expected(value)}" for path, value in where.items())
    return text


def _describe_expected(value: Any) -> str:
    if isinstance(value, dict) and value:
        if all(key in COMPARISON_OPS for key in value):
            return " and ".join(f"{op} {to_json(operand)}" for op, operand in value.items())
    return "= " + to_json(value)
