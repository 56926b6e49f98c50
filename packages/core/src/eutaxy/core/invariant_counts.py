"""What each invariant saw in a run, and when "it never broke" means nothing.

An invariant that selected no effect and read no row in any run holds trivially: a
selector with the wrong op, a table nobody writes. BOUNDED over it would be a vacuous
pass, so every invariant notes, per run, the effects its selector matched, the rows its
state query read and the keys it compared (``observe_invariant``); the engine joins them
over a check, so each count is of distinct values (two orders are two keys however many
runs wrote them; an effect is its invocation, ordinal, target and op), with the runs that
saw any, and refuses to call BOUNDED what an invariant never looked at
(``vacuous_invariant``) unless the scenario marks the invariant ``allowVacuous``.

The keys of a kind that compares none by a path are what its violation would name: a
``refines`` invariant's state keys (its invocations without ``state``), an aggregate's
groups (``groupBy``), a ``unique`` invariant's column values.

Which count is the invariant's *subject*, the one that must not stay zero:

- a selector (every kind but the state-only ones): the effects it matched, and for the
  kinds that compare keys (``at_most_once_per_key``, ``implies``, the ``at_least_once``
  forms, the interval kinds) the keys compared as well; for ``in_order_per_key`` the
  effects with a group key and a sequence value that orders;
- a state query (``every_row``, ``unique``, ``references``, ``aggregate``): the rows it
  read (a table that exists but is empty in every run is vacuous; a missing snapshot
  already breaks the invariant).
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import attrs

from eutaxy.core.canonical import to_json
from eutaxy.core.effects import Effect
from eutaxy.core.selectors import MISSING, get_path, op_matches, order_class, select, target_matches
from eutaxy.core.state_checks import query_rows
from eutaxy.core.violations import describe_selector

__all__ = ["InvariantCounts", "InvariantSight", "count_invariant", "effect_point", "nearest_effects", "observe_invariant", "vacuous_reason"]

#: Kinds whose subject is a state query's rows, not a selector's effects.
_STATE_ONLY = frozenset({"every_row", "unique", "references", "aggregate"})
#: Kinds that compare keys of selected effects.
_KEYED = frozenset(
    {
        "at_most_once_per_key",
        "at_least_once",
        "at_least_once_per_message",
        "implies",
        "in_order_per_key",
        "min_interval_per_key",
        "max_interval_per_key",
    }
)
#: Kinds whose keys are the selected effects with a value at ``key``.
_KEY_PATH = frozenset({"at_most_once_per_key", "implies", "min_interval_per_key", "max_interval_per_key"})


@attrs.frozen(kw_only=True)
class InvariantCounts:
    """What one invariant saw, as distinct values: in one run, or over a check's runs (``runs``:
    how many of them saw any effect or row)."""

    effects: int = 0
    rows: int = 0
    keys: int = 0
    runs: int = 0

    def to_data(self) -> dict[str, int]:
        return {"effects": self.effects, "rows": self.rows, "keys": self.keys, "runs": self.runs}


@attrs.frozen(kw_only=True)
class InvariantSight:
    """The distinct values one invariant saw: effects (invocation, ordinal, target, op), rows and
    keys as canonical JSON, and the runs that saw any; ``|`` joins two runs' or checks'."""

    effects: frozenset[tuple[str, int, str, str]] = frozenset()
    rows: frozenset[str] = frozenset()
    keys: frozenset[str] = frozenset()
    runs: int = 0

    def __or__(self, other: "InvariantSight") -> "InvariantSight":
        return InvariantSight(effects=self.effects | other.effects, rows=self.rows | other.rows,
                              keys=self.keys | other.keys, runs=self.runs + other.runs)

    def counts(self) -> InvariantCounts:
        return InvariantCounts(effects=len(self.effects), rows=len(self.rows), keys=len(self.keys), runs=self.runs)


def _key_texts(effects: Sequence[Effect], selected: list[int], path: str) -> set[str]:
    """The values at ``path`` of the selected effects that have one (each compared with the others or a row)."""
    values = (get_path(effects[index].payload, path) for index in selected)
    return {to_json(value) for value in values if value is not MISSING}


def observe_invariant(
    invariant: dict[str, Any], effects: Sequence[Effect], events: Sequence[dict[str, Any]]
) -> InvariantSight:
    """What ``invariant`` looked at on one run's log (``effects`` already ``Effect`` records)."""
    kind = invariant["kind"]
    selected: list[int] = select(invariant["selector"], effects) if "selector" in invariant else []
    rows: list[Any] = query_rows(invariant["query"], effects)[1] if "query" in invariant else []
    keys: set[str] = set()
    if kind in _KEY_PATH:
        keys = _key_texts(effects, selected, invariant["key"])
    elif kind == "in_order_per_key":
        keys = {
            to_json(group)
            for index in selected
            for group in [get_path(effects[index].payload, invariant["groupKey"])]
            if group is not MISSING and order_class(get_path(effects[index].payload, invariant["sequenceKey"])) is not None
        }
    elif kind == "at_least_once":
        keys = {to_json(value) for value in invariant["expected"]} if selected else set()
    elif kind == "at_least_once_per_message":
        bodies = (get_path(event.get("body"), invariant["bodyKey"]) for event in events)
        keys = {to_json(value) for value in bodies if value is not MISSING} if selected else set()
    elif kind == "refines":
        state = invariant.get("state")
        keys = _key_texts(effects, selected, state["key"]) if state else {to_json(effects[i].invocation) for i in selected}
    elif kind == "aggregate" and invariant.get("groupBy"):
        keys = {to_json(row.get(invariant["groupBy"])) for row in rows if isinstance(row, dict)}
    elif kind == "unique":
        keys = {to_json(row.get(invariant["column"])) for row in rows if isinstance(row, dict)}
    points = {(effects[i].invocation, effects[i].ordinal, effects[i].target, effects[i].op) for i in selected}
    return InvariantSight(
        effects=frozenset(points), rows=frozenset(to_json(row) for row in rows), keys=frozenset(keys),
        runs=1 if points or rows else 0,
    )


def count_invariant(
    invariant: dict[str, Any], effects: Sequence[Effect], events: Sequence[dict[str, Any]]
) -> InvariantCounts:
    """What ``invariant`` looked at on one run's log, counted (``observe_invariant``'s distinct values)."""
    return observe_invariant(invariant, effects, events).counts()


def vacuous_reason(invariant: dict[str, Any], counts: InvariantCounts) -> str | None:
    """Why the invariant checked nothing over ``counts`` (a check's totals), or None."""
    kind = invariant["kind"]
    if kind in _STATE_ONLY:
        if counts.rows == 0:
            query = invariant["query"]
            return f"its query over {query['target']} table {query['table']} read no row"
        return None
    selector = describe_selector(invariant["selector"])
    if counts.effects == 0:
        return f"its selector {selector} matched no effect"
    if kind in _KEYED and counts.keys == 0:
        if kind in ("at_least_once", "at_least_once_per_message"):
            return f"its selector {selector} matched effects but it had no expected key to compare"
        if kind == "in_order_per_key":
            return (
                f"its selector {selector} matched {counts.effects} effects, none with a value at "
                f"{invariant['groupKey']} and a number or string at {invariant['sequenceKey']}"
            )
        return f"its selector {selector} matched {counts.effects} effects, none with a value at {invariant['key']}"
    return None


def nearest_effects(selector: dict[str, Any], seen: Iterable[tuple[str, str, str]]) -> list[str]:
    """The effects the runs did have that come closest to ``selector``, as ``target op kind``.

    Only effects of the selector's kind count. First those with its target and op that its
    ``where`` refused, then the same target with another op, then the same op on another
    target (when the selector names no op, another target of the same binding kind): what a
    user who wrote the wrong op or binding name looks for.
    """
    tiers: list[list[str]] = [[], [], []]
    wanted_kind = selector.get("kind")
    for target, op, kind in sorted(set(seen)):
        if wanted_kind is not None and kind != wanted_kind:
            continue
        target_holds = target_matches(selector.get("target"), target)
        op_holds = op_matches(selector.get("op"), op)
        text = f"{target} {op} {kind}"
        if target_holds and op_holds:
            tiers[0].append(text + " (refused by its where)")
        elif target_holds:
            tiers[1].append(text + " (same target, other op)")
        elif op_holds and (selector.get("op") is not None or _same_kind(selector.get("target"), target)):
            tiers[2].append(text + " (same op, other target)")
    return tiers[0] + tiers[1] + tiers[2]


def _same_kind(pattern: Any, target: str) -> bool:
    """Whether a target is of the selector's binding kind (``D1:`` for ``D1:DB``)."""
    return isinstance(pattern, str) and ":" in pattern and target.split(":", 1)[0] == pattern.split(":", 1)[0]


def effect_point(effect: Effect) -> tuple[str, str, str]:
    """What ``nearest_effects`` remembers of an effect: its target, op and kind."""
    return (effect.target, effect.op, effect.kind)
