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
from typing import Any, Sequence

from eutaxy.core.canonical import to_json
from eutaxy.core.effects import Effect
from eutaxy.core.selectors import MISSING, get_path, order_class, select
from eutaxy.core.violations import Violation, effects_label, join_words, violation_of

__all__ = ["check_in_order_per_key", "check_max_interval_per_key", "check_min_interval_per_key", "keyed_groups"]


def keyed_groups(invariant: dict[str, Any], effects: Sequence[Effect], key: str) -> dict[str, list[int]]:
    """The selected effects' log indices by the canonical value at ``key``, groups in order of first sight."""
    groups: dict[str, list[int]] = {}
    for index in select(invariant["selector"], effects):
        value = get_path(effects[index].payload, key)
        if value is not MISSING:
            groups.setdefault(to_json(value), []).append(index)
    return groups


def _others_text(label: str, keys: list[str]) -> str:
    if len(keys) <= 1:
        return ""
    return f" ({label} {join_words(keys[1:])} too)"


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
    broken: list[str] = []
    involved: set[int] = set()
    first_pair: tuple[str, int, int] | None = None
    for group, indices in keyed_groups(invariant, effects, invariant["groupKey"]).items():
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
        if group_first is None:
            continue
        broken.append(group)
        involved |= group_involved
        if first_pair is None:
            first_pair = (group, *group_first)
    if first_pair is None:
        return None
    group, earlier, later = first_pair

    def value_of(index: int) -> str:
        return to_json(get_path(effects[index].payload, sequence_key))

    message = (
        f"{invariant['name']}: {effects_label(effects, [earlier, later])} effects of group {group} out of order: "
        f"{sequence_key} {value_of(earlier)} ({effects[earlier].describe()}) came before "
        f"{sequence_key} {value_of(later)} ({effects[later].describe()})"
        + _others_text("groups", broken)
    )
    return violation_of(invariant, message, keys=broken, effects=sorted(involved))


# --- intervals ---------------------------------------------------------------------------


def _by_time(effects: Sequence[Effect], indices: list[int]) -> list[int]:
    return sorted(indices, key=lambda index: (effects[index].time, index))


def check_min_interval_per_key(invariant: dict[str, Any], effects: Sequence[Effect]) -> Violation | None:
    """Two selected effects with one key are at least ``ms`` of virtual time apart.

    In time order only neighbours need comparing: if any two effects of a key are closer
    than ``ms``, so are two neighbours, and an effect is in a close pair exactly when one
    of its neighbours is close to it.
    """
    ms = invariant["ms"]
    broken: list[str] = []
    involved: set[int] = set()
    closest: tuple[str, int, int] | None = None
    for key, indices in keyed_groups(invariant, effects, invariant["key"]).items():
        ordered = _by_time(effects, indices)
        close = [(a, b) for a, b in itertools.pairwise(ordered) if effects[b].time - effects[a].time < ms]
        if not close:
            continue
        broken.append(key)
        for a, b in close:
            involved.update((a, b))
        if closest is None:
            closest = (key, *close[0])
    if closest is None:
        return None
    key, a, b = closest
    message = (
        f"{invariant['name']}: {effects_label(effects, [a, b])} effects with key {key} came "
        f"{effects[b].time - effects[a].time} ms apart, less than the {ms} ms required: "
        f"{effects[a].describe()} and {effects[b].describe()}"
        + _others_text("keys", broken)
    )
    return violation_of(invariant, message, keys=broken, effects=sorted(involved))


def check_max_interval_per_key(invariant: dict[str, Any], effects: Sequence[Effect]) -> Violation | None:
    """The selected effects with one key all lie within ``ms`` of the first of them.

    That is the key's span, its latest time less its earliest; an effect is too far from
    another exactly when it is too far from the earliest or from the latest.
    """
    ms = invariant["ms"]
    broken: list[str] = []
    involved: set[int] = set()
    widest: tuple[str, int, int] | None = None
    for key, indices in keyed_groups(invariant, effects, invariant["key"]).items():
        ordered = _by_time(effects, indices)
        earliest, latest = effects[ordered[0]].time, effects[ordered[-1]].time
        if latest - earliest <= ms:
            continue
        broken.append(key)
        involved.update(i for i in ordered if effects[i].time - earliest > ms or latest - effects[i].time > ms)
        if widest is None:
            widest = (key, ordered[0], ordered[-1])
    if widest is None:
        return None
    key, first, last = widest
    message = (
        f"{invariant['name']}: {effects_label(effects, [first, last])} effects with key {key} came "
        f"{effects[last].time - effects[first].time} ms apart, more than the {ms} ms allowed: "
        f"{effects[first].describe()}, then {effects[last].describe()}"
        + _others_text("keys", broken)
    )
    return violation_of(invariant, message, keys=broken, effects=sorted(involved))
