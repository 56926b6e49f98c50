"""Order and time invariants over the effect log: what came first, and how long apart.

- ``in_order_per_key``: among the selected effects that share a group key, the sequence
  values never go down in log order (a FIFO consumer's forwards of one customer).
- ``min_interval_per_key``: two selected effects with one key are at least ``ms`` of
  virtual time apart (a rate limit, a back-off).
- ``max_interval_per_key``: the selected effects with one key all lie within ``ms`` of the
  first of them (a deadline: the reminder within an hour of the order). It asks nothing of
  a key with one effect; that the second happens at all is ``at_least_once``'s to say.

Keys are canonical JSON, as in every delivery invariant; an effect with no value at the
key (or group key) path is passed over. Sequence values order as the comparisons do
(``selectors.order_class``): numbers with numbers, strings with strings; a value of
neither class (null, a boolean, an object, a missing path) has no place in the order and
is passed over, and a number and a string never count as out of order. Times are each
effect's ``time`` (virtual milliseconds); a log's records are not always in time order
(under concurrency a point's result is recorded after a later point opened), so the
interval invariants compare times, never log positions.

Each checker finds its violations a different way from the naive pairwise reference the
self-check holds it to (tests/reference.py): a running maximum and minimum per group, or
neighbours in time order.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable, Sequence

from eutaxy.core.canonical import to_json
from eutaxy.core.effects import Effect
from eutaxy.core.selectors import get_path, keyed_groups, order_class
from eutaxy.core.violations import Violation, effects_label, others_too, violation_of

__all__ = ["check_in_order_per_key", "check_max_interval_per_key", "check_min_interval_per_key"]

#: What one group's check found when the group breaks the invariant: every effect of the
#: group in an offending pair, and the pair the message names (earlier, later).
_Found = tuple[set[int], tuple[int, int]]


def _per_group(
    invariant: dict[str, Any],
    effects: Sequence[Effect],
    key: str,
    label: str,
    check_group: Callable[[list[int]], _Found | None],
    says: Callable[[str, int, int], str],
) -> Violation | None:
    """One violation over every group that breaks: ``check_group`` looks at one group's indices.

    The violation's keys are the broken groups in order of first sight, its effects every
    effect of them in an offending pair; the message names the first broken group's pair
    (``says(group, earlier, later)``, after "<n> effects ") and the other groups by ``label``.
    """
    broken: list[str] = []
    involved: set[int] = set()
    first: tuple[str, int, int] | None = None
    for group, indices in keyed_groups(invariant["selector"], effects, key).items():
        found = check_group(indices)
        if found is None:
            continue
        broken.append(group)
        involved |= found[0]
        if first is None:
            first = (group, *found[1])
    if first is None:
        return None
    group, earlier, later = first
    message = f"{invariant['name']}: {effects_label(effects, [earlier, later])} effects {says(group, earlier, later)}" + others_too(label, broken)
    return violation_of(invariant, message, keys=broken, effects=sorted(involved))


# --- in order ----------------------------------------------------------------------------


def _inverted(sequence: list[tuple[int, Any]]) -> tuple[set[int], tuple[int, int] | None]:
    """The indices in some out-of-order pair of one group and class, and the first such pair.

    An effect is the later one of a pair when an earlier value exceeds its own (the running
    maximum before it), the earlier one when a later value is below its own (the running
    minimum after it). The first pair is the first effect that goes back, with the first
    earlier effect it went below.
    """
    involved: set[int] = set()
    first: tuple[int, int] | None = None
    highest: Any = None
    for position, (index, value) in enumerate(sequence):
        if position and highest > value:
            involved.add(index)
            if first is None:
                earlier = next(i for i, v in sequence[:position] if v > value)
                first = (earlier, index)
        highest = value if position == 0 or value > highest else highest
    lowest: Any = None
    for position, (index, value) in enumerate(reversed(sequence)):
        if position and lowest < value:
            involved.add(index)
        lowest = value if position == 0 or value < lowest else lowest
    return involved, first


def check_in_order_per_key(invariant: dict[str, Any], effects: Sequence[Effect]) -> Violation | None:
    """Within each group, the sequence values of the selected effects never go down in log order."""
    sequence_key = invariant["sequenceKey"]

    def out_of_order(indices: list[int]) -> _Found | None:
        by_class: dict[str, list[tuple[int, Any]]] = {}
        for index in indices:
            value = get_path(effects[index].payload, sequence_key)
            value_class = order_class(value)
            if value_class is not None:
                by_class.setdefault(value_class, []).append((index, value))
        group_involved: set[int] = set()
        group_first: tuple[int, int] | None = None
        for sequence in by_class.values():
            found, first = _inverted(sequence)
            group_involved |= found
            if first is not None and (group_first is None or first[1] < group_first[1]):
                group_first = first
        return None if group_first is None else (group_involved, group_first)

    def value_of(index: int) -> str:
        return to_json(get_path(effects[index].payload, sequence_key))

    def says(group: str, earlier: int, later: int) -> str:
        return (
            f"of group {group} out of order: "
            f"{sequence_key} {value_of(earlier)} ({effects[earlier].describe()}) came before "
            f"{sequence_key} {value_of(later)} ({effects[later].describe()})"
        )

    return _per_group(invariant, effects, invariant["groupKey"], "groups", out_of_order, says)


# --- intervals ---------------------------------------------------------------------------


def _by_time(effects: Sequence[Effect], indices: list[int]) -> list[int]:
    return sorted(indices, key=lambda index: (effects[index].time, index))


def _apart(effects: Sequence[Effect], against: str, joiner: str) -> Callable[[str, int, int], str]:
    """What an interval check says of a key's pair: how far apart its effects came, ``against`` the bound."""

    def says(key: str, a: int, b: int) -> str:
        return f"with key {key} came {effects[b].time - effects[a].time} ms apart, {against}: {effects[a].describe()}{joiner}{effects[b].describe()}"

    return says


def check_min_interval_per_key(invariant: dict[str, Any], effects: Sequence[Effect]) -> Violation | None:
    """Two selected effects with one key are at least ``ms`` of virtual time apart.

    In time order only neighbours need comparing: if any two effects of a key are closer
    than ``ms``, so are two neighbours, and an effect is in a close pair exactly when one
    of its neighbours is close to it.
    """
    ms = invariant["ms"]

    def too_close(indices: list[int]) -> _Found | None:
        ordered = _by_time(effects, indices)
        close = [(a, b) for a, b in itertools.pairwise(ordered) if effects[b].time - effects[a].time < ms]
        if not close:
            return None
        involved: set[int] = set()
        for a, b in close:
            involved.update((a, b))
        return involved, close[0]

    return _per_group(invariant, effects, invariant["key"], "keys", too_close, _apart(effects, f"less than the {ms} ms required", " and "))


def check_max_interval_per_key(invariant: dict[str, Any], effects: Sequence[Effect]) -> Violation | None:
    """The selected effects with one key all lie within ``ms`` of the first of them.

    That is the key's span, its latest time less its earliest; an effect is too far from
    another exactly when it is too far from the earliest or from the latest.
    """
    ms = invariant["ms"]

    def too_far(indices: list[int]) -> _Found | None:
        ordered = _by_time(effects, indices)
        earliest, latest = effects[ordered[0]].time, effects[ordered[-1]].time
        if latest - earliest <= ms:
            return None
        involved = {i for i in ordered if effects[i].time - earliest > ms or latest - effects[i].time > ms}
        return involved, (ordered[0], ordered[-1])

    return _per_group(invariant, effects, invariant["key"], "keys", too_far, _apart(effects, f"more than the {ms} ms allowed", ", then "))
