"""Delivery invariants over the effect log: nothing twice, nothing lost.

Each checker is a pure function of an invariant's plain data and the log, returning at
most one Violation that lists every offending key, so "same invariant, same keys" is a
question the shrinker can ask of any two runs.

Keys: an effect whose payload has no value at the key path has no key. It cannot share a
key (``at_most_once_per_key`` passes over it) and it cannot meet an expectation (the
``at_least_once`` forms still demand an effect that has the key). JSON ``null`` is a value.
"""

from __future__ import annotations

from typing import Any, Sequence

from eutaxy.core.canonical import to_json
from eutaxy.core.effects import Effect
from eutaxy.core.selectors import MISSING, get_path, keyed_groups
from eutaxy.core.violations import (
    Violation,
    count_word,
    describe_effects,
    describe_selector,
    effects_label,
    join_words,
    plural,
    shared_message,
    shared_values,
    violation_of,
)

__all__ = ["check_at_least_once", "check_at_least_once_per_message", "check_at_most_once_per_key", "found_keys"]


def found_keys(invariant: dict[str, Any], effects: Sequence[Effect]) -> set[str]:
    """The canonical keys of the effects the invariant's selector picks."""
    return set(keyed_groups(invariant["selector"], effects, invariant["key"]))


def check_at_most_once_per_key(invariant: dict[str, Any], effects: Sequence[Effect]) -> Violation | None:
    """No two selected effects share a key."""
    shared = shared_values(keyed_groups(invariant["selector"], effects, invariant["key"]))
    if not shared:
        return None

    def says(key: str, indices: Sequence[int]) -> str:
        return f"{count_word(len(indices))} {effects_label(effects, indices)} effects share key {key}: {describe_effects(effects, indices)}"

    message = shared_message(invariant, shared, "keys", says)
    involved = sorted(index for _, indices in shared for index in indices)
    return violation_of(invariant, message, keys=[text for text, _ in shared], effects=involved)


def check_at_least_once(invariant: dict[str, Any], effects: Sequence[Effect]) -> Violation | None:
    """Every expected value is the key of a selected effect."""
    present = found_keys(invariant, effects)
    # Each expected key once, in the order first expected.
    absent = list(dict.fromkeys(text for text in map(to_json, invariant["expected"]) if text not in present))
    if not absent:
        return None
    message = (
        f"{invariant['name']}: no {describe_selector(invariant['selector'])} effect has "
        f"{plural('key', len(absent))} {join_words(absent)} at {invariant['key']}"
    )
    return violation_of(invariant, message, keys=absent)


def check_at_least_once_per_message(
    invariant: dict[str, Any], effects: Sequence[Effect], events: Sequence[dict[str, Any]]
) -> Violation | None:
    """Every remaining event of the drive has a selected effect keyed by its body's value.

    The expectations come from ``events`` (the events the run kept), so a shrunk run is
    held only to the messages it still delivers.
    """
    present = found_keys(invariant, effects)
    body_key = invariant["bodyKey"]
    absent: list[str] = []
    lost: list[str] = []
    keyless: list[str] = []
    for event in events:
        value = get_path(event.get("body"), body_key)
        event_id = str(event.get("id"))
        if value is MISSING:
            keyless.append(event_id)
            continue
        text = to_json(value)
        if text not in present:
            lost.append(f"{event_id} ({body_key} {text})")
            if text not in absent:
                absent.append(text)
    if not lost and not keyless:
        return None
    parts = []
    if lost:
        parts.append(
            f"{plural('event', len(lost))} {join_words(lost)} got no effect matching "
            f"{describe_selector(invariant['selector'])} with that value at {invariant['key']}"
        )
    if keyless:
        parts.append(f"{plural('event', len(keyless))} {join_words(keyless)} have no body value at {body_key!r} to check")
    return violation_of(invariant, f"{invariant['name']}: " + "; ".join(parts), keys=absent)
