"""State invariants over the snapshots a run records after its last event.

A query names a snapshot by target and table. When the log holds no such snapshot the
invariant is violated, whatever else it says: a state check that could not look never
passes. Column values compare as canonical JSON. ``unique`` and ``references`` pass over
rows whose column is null or absent, as SQL's UNIQUE and foreign keys do; ``aggregate``
skips them, as SQL's aggregates skip NULL.
"""

from __future__ import annotations

import decimal
import functools
from typing import Any, Callable, Sequence

from eutaxy.core.canonical import to_json
from eutaxy.core.effects import Effect, find_snapshot
from eutaxy.core.selectors import MISSING, compare, get_path, order_class, row_matches, row_value, select
from eutaxy.core.violations import Violation, count_word, describe_effects, join_words, others_too, plural, shared_message, shared_values, violation_of

__all__ = ["AGGREGATE_FNS", "check_aggregate", "check_every_row", "check_implies", "check_references", "check_unique", "query_rows"]


def query_rows(query: dict[str, Any], effects: Sequence[Effect]) -> tuple[int | None, list[Any]]:
    """The snapshot's log index and its rows meeting the query's conditions.

    The index is None when no snapshot of the query's target and table was recorded.
    """
    index = find_snapshot(effects, query["target"], query["table"])
    if index is None:
        return None, []
    payload = effects[index].payload
    all_rows = payload.get("rows", []) if isinstance(payload, dict) else []
    conditions = query.get("where") or []
    return index, [row for row in all_rows if all(row_matches(row, c) for c in conditions)]


def _where(query: dict[str, Any]) -> str:
    return f"{query['target']} table {query['table']}"


def _no_snapshot(invariant: dict[str, Any], query: dict[str, Any]) -> Violation:
    return violation_of(
        invariant,
        f"{invariant['name']}: no snapshot of {_where(query)} was recorded, so the state "
        f"cannot be checked; give {query['target']} a setup step (a missing snapshot never passes)",
    )


#: A state check given the rows its query selects: (invariant, effects, snapshot index, rows).
_RowsCheck = Callable[[dict[str, Any], Sequence[Effect], int, list[Any]], Violation | None]


def _on_snapshot(check: _RowsCheck) -> Callable[[dict[str, Any], Sequence[Effect]], Violation | None]:
    """The check over the rows of the invariant's ``query``; with no snapshot of it, the violation that says so.

    This is the rule every state check keeps: a check that could not look never passes.
    """

    @functools.wraps(check)
    def checked(invariant: dict[str, Any], effects: Sequence[Effect]) -> Violation | None:
        index, selected = query_rows(invariant["query"], effects)
        if index is None:
            return _no_snapshot(invariant, invariant["query"])
        return check(invariant, effects, index, selected)

    return checked


def _condition_text(condition: dict[str, Any]) -> str:
    if condition["op"] == "notNull":
        return f"{condition['column']} notNull"
    return f"{condition['column']} {condition['op']} {to_json(condition.get('value'))}"


@_on_snapshot
def check_every_row(invariant: dict[str, Any], effects: Sequence[Effect], index: int, selected: list[Any]) -> Violation | None:
    """Every row the query selects meets every condition."""
    query = invariant["query"]
    conditions = invariant["conditions"]
    failing = [row for row in selected if not all(row_matches(row, c) for c in conditions)]
    if not failing:
        return None
    first = failing[0]
    broken = [c for c in conditions if not row_matches(first, c)]
    noun, verb = ("row", "breaks") if len(failing) == 1 else ("rows", "break")
    message = (
        f"{invariant['name']}: {count_word(len(failing))} {noun} of {_where(query)} "
        f"{verb} the conditions; {to_json(first)} fails {join_words([_condition_text(c) for c in broken])}"
    )
    keys: list[str] = []
    for row in failing:
        text = to_json(row)
        if text not in keys:
            keys.append(text)
    return violation_of(invariant, message, keys=keys, effects=[index], rows=failing)


def _column_text(row: Any, column: str) -> str | None:
    value = row_value(row, column)
    if value is MISSING or value is None:
        return None
    return to_json(value)


@_on_snapshot
def check_unique(invariant: dict[str, Any], effects: Sequence[Effect], index: int, selected: list[Any]) -> Violation | None:
    """No two selected rows share a (non-null) value in the column."""
    query = invariant["query"]
    column = invariant["column"]
    groups: dict[str, list[Any]] = {}
    for row in selected:
        text = _column_text(row, column)
        if text is not None:
            groups.setdefault(text, []).append(row)
    shared = shared_values(groups)
    if not shared:
        return None
    message = shared_message(invariant, shared, "values", lambda text, rows: f"{count_word(len(rows))} rows of {_where(query)} share {column} {text}")
    return violation_of(invariant, message, keys=[text for text, _ in shared], effects=[index], rows=[row for _, group in shared for row in group])


@_on_snapshot
def check_implies(invariant: dict[str, Any], effects: Sequence[Effect], index: int, selected: list[Any]) -> Violation | None:
    """Every selected effect has a row whose column equals the effect's key."""
    query = invariant["query"]
    column = invariant["column"]
    present = set()
    for row in selected:
        value = row_value(row, column)
        if value is not MISSING:
            present.add(to_json(value))
    unmatched: list[int] = []
    keys: list[str] = []
    for effect_index in select(invariant["selector"], effects):
        value = get_path(effects[effect_index].payload, invariant["key"])
        text = None if value is MISSING else to_json(value)
        if text is None or text not in present:
            unmatched.append(effect_index)
            if text is not None and text not in keys:
                keys.append(text)
    if not unmatched:
        return None
    first = effects[unmatched[0]]
    first_value = get_path(first.payload, invariant["key"])
    if first_value is MISSING:
        why = f"has no value at {invariant['key']}"
    else:
        why = f"has key {to_json(first_value)} but no row of {_where(query)} has {column} {to_json(first_value)}"
    message = f"{invariant['name']}: {first.target} {first.op} ({first.describe()}) {why}"
    if len(unmatched) > 1:
        message += f" ({count_word(len(unmatched) - 1)} more: {describe_effects(effects, unmatched[1:])})"
    return violation_of(invariant, message, keys=keys, effects=unmatched)


@_on_snapshot
def check_references(invariant: dict[str, Any], effects: Sequence[Effect], source_index: int, source_rows: list[Any]) -> Violation | None:
    """Every selected row's (non-null) column is named by a row of the target query."""
    query = invariant["query"]
    target = invariant["target"]
    column = invariant["column"]
    target_column = invariant["targetColumn"]
    target_index, target_rows = query_rows(target, effects)
    if target_index is None:
        return _no_snapshot(invariant, target)
    named = set()
    for row in target_rows:
        text = _column_text(row, target_column)
        if text is not None:
            named.add(text)
    orphans: list[Any] = []
    keys: list[str] = []
    for row in source_rows:
        text = _column_text(row, column)
        if text is not None and text not in named:
            orphans.append(row)
            if text not in keys:
                keys.append(text)
    if not orphans:
        return None
    message = (
        f"{invariant['name']}: {count_word(len(orphans))} {plural('row', len(orphans))} of {_where(query)} "
        f"name {column} {join_words(keys)} that no row of {_where(target)} has as {target_column}"
    )
    return violation_of(invariant, message, keys=keys, effects=sorted({source_index, target_index}), rows=orphans)


# --- aggregate ---------------------------------------------------------------------------

#: The aggregate functions, as SQL names them.
AGGREGATE_FNS = ("sum", "count", "min", "max")


def _add(total: Any, value: Any) -> Any:
    """``total + value``, a float made a Decimal beside a Decimal (a DynamoDB number)."""
    if isinstance(total, decimal.Decimal) and isinstance(value, float):
        value = decimal.Decimal(repr(value))
    elif isinstance(value, decimal.Decimal) and isinstance(total, float):
        total = decimal.Decimal(repr(total))
    return total + value


def aggregate_of(fn: str, values: Sequence[Any]) -> tuple[Any, Any]:
    """``(result, refused)``: the aggregate of one group's values, or the value it cannot take.

    Null and absent values are skipped. ``sum`` takes numbers and is 0 over none (a quota
    over an empty table is met); ``count`` counts the values; ``min`` and ``max`` take
    numbers or strings, not both, and are MISSING over none (nothing to compare, so the
    group holds). ``refused`` is MISSING when every value was taken.
    """
    present = [value for value in values if value is not MISSING and value is not None]
    if fn == "count":
        return len(present), MISSING
    if fn == "sum":
        total: Any = 0
        for value in present:
            if order_class(value) != "number":
                return MISSING, value
            total = _add(total, value)
        return total, MISSING
    if not present:
        return MISSING, MISSING
    classes = [order_class(value) for value in present]
    for value, value_class in zip(present, classes, strict=True):
        if value_class is None or value_class != classes[0]:
            return MISSING, value
    return (min(present) if fn == "min" else max(present)), MISSING


def _expectation(invariant: dict[str, Any]) -> str:
    if invariant["op"] == "notNull":
        return "notNull"
    return f"{invariant['op']} {to_json(invariant.get('value'))}"


@_on_snapshot
def check_aggregate(invariant: dict[str, Any], effects: Sequence[Effect], index: int, selected: list[Any]) -> Violation | None:
    """The aggregate of a column over the queried rows (per ``groupBy`` value) meets ``op value``.

    With ``groupBy`` the rows are grouped by that column's canonical value, null and absent
    values making one group of their own, as SQL's GROUP BY does; the violation's keys are
    the groups that break. A group whose values the function cannot take breaks too: an
    aggregate that could not be computed never passes.
    """
    query = invariant["query"]
    column, fn, group_by = invariant["column"], invariant["fn"], invariant.get("groupBy")
    groups: dict[str, list[Any]] = {}
    for row in selected:
        group = MISSING if group_by is None else row_value(row, group_by)
        groups.setdefault("" if group_by is None else to_json(None if group is MISSING else group), []).append(row)
    if group_by is None and not groups:
        groups[""] = []
    failing: list[tuple[str, list[Any], Any, Any]] = []
    for group, rows in groups.items():
        result, refused = aggregate_of(fn, [row_value(row, column) for row in rows])
        if refused is not MISSING or (result is not MISSING and not compare(invariant["op"], result, invariant.get("value"))):
            failing.append((group, rows, result, refused))
    if not failing:
        return None
    group, _, result, refused = failing[0]
    where = f"{fn} of {column} over {_where(query)}" + (f" for {group_by} {group}" if group_by is not None else "")
    if refused is not MISSING:
        takes = "numbers" if fn == "sum" else "numbers or strings, not both"
        message = f"{invariant['name']}: cannot take the {where}: it holds {to_json(refused)}, and {fn} takes {takes}"
    else:
        message = f"{invariant['name']}: the {where} is {to_json(result)}, which breaks {_expectation(invariant)}"
    message += others_too(str(group_by), [text for text, _, _, _ in failing], "break it")
    keys = [text for text, _, _, _ in failing] if group_by is not None else []
    return violation_of(invariant, message, keys=keys, effects=[index], rows=[row for _, rows, _, _ in failing for row in rows])
