"""Invariants as plain data, their constructors, and the one entry point that checks them.

An invariant is a dict keyed by ``kind`` (``at_most_once_per_key``, ``every_row``, …) with
camelCase fields, as the seeds write them; the constructors here take snake_case
arguments, check them, and build that data. ``check_invariants`` validates each invariant
and hands it to its pure checker (``delivery_checks``, ``order_checks``, ``state_checks``,
``refines``).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

from eutaxy.core.delivery_checks import (
    check_at_least_once,
    check_at_least_once_per_message,
    check_at_most_once_per_key,
)
from eutaxy.core.effects import Effect, as_effects
from eutaxy.core.errors import UserError, nearest_names
from eutaxy.core.order_checks import check_in_order_per_key, check_max_interval_per_key, check_min_interval_per_key
from eutaxy.core.refines import check_refines
from eutaxy.core.selectors import validate_condition, validate_query, validate_selector
from eutaxy.core.state_checks import (
    AGGREGATE_FNS,
    check_aggregate,
    check_every_row,
    check_implies,
    check_references,
    check_unique,
)
from eutaxy.core.violations import Violation

__all__ = [
    "INVARIANT_KINDS",
    "aggregate",
    "at_least_once",
    "at_least_once_per_message",
    "at_most_once_per_key",
    "check_invariant",
    "check_invariants",
    "every_row",
    "implies",
    "in_order_per_key",
    "max_interval_per_key",
    "min_interval_per_key",
    "references",
    "refines",
    "unique",
    "validate_invariant",
]

INVARIANT_KINDS = (
    "at_most_once_per_key",
    "at_least_once_per_message",
    "at_least_once",
    "every_row",
    "unique",
    "implies",
    "references",
    "refines",
    "in_order_per_key",
    "min_interval_per_key",
    "max_interval_per_key",
    "aggregate",
)

#: Kinds that pick effects with a selector and compare them by a key path.
_SELECTOR_KINDS = (
    "at_most_once_per_key",
    "at_least_once_per_message",
    "at_least_once",
    "implies",
    "refines",
    "in_order_per_key",
    "min_interval_per_key",
    "max_interval_per_key",
)


# --- constructors --------------------------------------------------------------------


def _checked(invariant: dict[str, Any], allow_vacuous: bool = False) -> dict[str, Any]:
    """Validate a constructor's data; ``allow_vacuous`` marks an invariant that may select nothing.

    A check refuses BOUNDED over an invariant that selected no effect and read no row in
    any run (``vacuous_invariant``), since it held trivially; an invariant that is meant
    to look at nothing in some scenarios says so with ``allow_vacuous=True``.
    """
    if allow_vacuous:
        invariant["allowVacuous"] = True
    validate_invariant(invariant)
    return invariant


def at_most_once_per_key(
    name: str, selector: dict[str, Any], key: str, *, allow_vacuous: bool = False
) -> dict[str, Any]:
    """No two selected effects share a key (duplicate side effects under retries)."""
    return _checked(
        {"kind": "at_most_once_per_key", "name": name, "selector": selector, "key": key}, allow_vacuous
    )


def at_least_once_per_message(
    name: str,
    drive: dict[str, Any] | str,
    selector: dict[str, Any],
    key: str,
    body_key: str,
    *,
    allow_vacuous: bool = False,
) -> dict[str, Any]:
    """Every event of ``drive`` has a selected effect whose key is its body's ``body_key`` value."""
    drive_name = drive.get("name") if isinstance(drive, dict) else drive
    return _checked(
        {
            "kind": "at_least_once_per_message",
            "name": name,
            "drive": drive_name,
            "selector": selector,
            "key": key,
            "bodyKey": body_key,
        },
        allow_vacuous,
    )


def at_least_once(
    name: str, selector: dict[str, Any], key: str, expected: Iterable[Any], *, allow_vacuous: bool = False
) -> dict[str, Any]:
    """Every value of ``expected`` is the key of a selected effect.

    The shrinker never removes an event that names one of the expected keys (its id or a
    value in its body), since removing it would keep the key missing without the fault.
    """
    return _checked(
        {"kind": "at_least_once", "name": name, "selector": selector, "key": key, "expected": list(expected)},
        allow_vacuous,
    )


def every_row(
    name: str, query: dict[str, Any], conditions: Iterable[dict[str, Any]], *, allow_vacuous: bool = False
) -> dict[str, Any]:
    """Every row the query selects meets every ``{column, op, value}`` condition."""
    return _checked(
        {"kind": "every_row", "name": name, "query": query, "conditions": [dict(c) for c in conditions]},
        allow_vacuous,
    )


def unique(name: str, query: dict[str, Any], column: str, *, allow_vacuous: bool = False) -> dict[str, Any]:
    """No two selected rows share a value in ``column``."""
    return _checked({"kind": "unique", "name": name, "query": query, "column": column}, allow_vacuous)


def implies(
    name: str, selector: dict[str, Any], key: str, query: dict[str, Any], column: str, *, allow_vacuous: bool = False
) -> dict[str, Any]:
    """Every selected effect has a row whose ``column`` equals the effect's key."""
    return _checked(
        {"kind": "implies", "name": name, "selector": selector, "key": key, "query": query, "column": column},
        allow_vacuous,
    )


def references(
    name: str,
    query: dict[str, Any],
    column: str,
    target: dict[str, Any],
    target_column: str,
    *,
    allow_vacuous: bool = False,
) -> dict[str, Any]:
    """Every selected row is named by a row of ``target``, as a foreign key is."""
    return _checked(
        {
            "kind": "references",
            "name": name,
            "query": query,
            "column": column,
            "target": target,
            "targetColumn": target_column,
        },
        allow_vacuous,
    )


def in_order_per_key(
    name: str, selector: dict[str, Any], group_key: str, sequence_key: str, *, allow_vacuous: bool = False
) -> dict[str, Any]:
    """Among selected effects that share a group key, sequence values never go down in log order.

    Numbers order with numbers and strings with strings; an effect with no group key, or
    whose sequence value is neither, is passed over.
    """
    return _checked(
        {
            "kind": "in_order_per_key",
            "name": name,
            "selector": selector,
            "groupKey": group_key,
            "sequenceKey": sequence_key,
        },
        allow_vacuous,
    )


def min_interval_per_key(
    name: str, selector: dict[str, Any], key: str, ms: int | float, *, allow_vacuous: bool = False
) -> dict[str, Any]:
    """Two selected effects with one key are at least ``ms`` milliseconds of virtual time apart."""
    return _checked(
        {"kind": "min_interval_per_key", "name": name, "selector": selector, "key": key, "ms": ms}, allow_vacuous
    )


def max_interval_per_key(
    name: str, selector: dict[str, Any], key: str, ms: int | float, *, allow_vacuous: bool = False
) -> dict[str, Any]:
    """Every selected effect with a key comes within ``ms`` milliseconds of virtual time of the first.

    A deadline; a key with one effect meets it (``at_least_once`` asks for the second).
    """
    return _checked(
        {"kind": "max_interval_per_key", "name": name, "selector": selector, "key": key, "ms": ms}, allow_vacuous
    )


def aggregate(
    name: str,
    query: dict[str, Any],
    column: str,
    fn: str,
    op: str,
    value: Any = None,
    group_by: str | None = None,
    *,
    allow_vacuous: bool = False,
) -> dict[str, Any]:
    """The ``fn`` (sum, count, min, max) of ``column`` over the queried rows meets ``op value``.

    ``op`` is a row condition's (``lte``, ``eq``, …). With ``group_by`` the aggregate is
    taken per value of that column and every group must meet it: "count of charged rows is
    at most 1 per order" is ``aggregate(..., "order_id", "count", "lte", 1, group_by="order_id")``
    over a query whose ``where`` keeps the charged rows.
    """
    invariant: dict[str, Any] = {"kind": "aggregate", "name": name, "query": query, "column": column, "fn": fn, "op": op}
    if op != "notNull":
        invariant["value"] = value
    if group_by is not None:
        invariant["groupBy"] = group_by
    return _checked(invariant, allow_vacuous)


def refines(
    name: str,
    decision: str,
    selector: dict[str, Any],
    *,
    follows: Iterable[dict[str, str]] = (),
    state: dict[str, Any] | None = None,
    allow_vacuous: bool = False,
) -> dict[str, Any]:
    """Every selected effect carries out its invocation's latest ``decision``, on fresh state."""
    invariant: dict[str, Any] = {
        "kind": "refines",
        "name": name,
        "decision": decision,
        "selector": selector,
        "follows": [dict(pair) for pair in follows],
    }
    if state is not None:
        invariant["state"] = dict(state)
    return _checked(invariant, allow_vacuous)


# --- validation ----------------------------------------------------------------------


def _require_string(invariant: dict[str, Any], field: str, label: str) -> None:
    value = invariant.get(field)
    if not isinstance(value, str):
        raise UserError(f"{label}: {field} must be a string, got {value!r}")


def validate_invariant(invariant: Any) -> None:
    """Refuse malformed invariant data with a message naming the invariant and the field."""
    if not isinstance(invariant, dict):
        raise UserError(f"an invariant must be a dict built by a helper such as at_most_once_per_key, got {invariant!r}")
    kind = invariant.get("kind")
    if kind not in INVARIANT_KINDS:
        raise UserError(f"unknown invariant kind {kind!r}; {nearest_names(str(kind), INVARIANT_KINDS, what='the kinds')}")
    name = invariant.get("name")
    if not isinstance(name, str) or not name:
        raise UserError(f"a {kind} invariant needs a name, got {name!r}")
    label = f"invariant {name!r} ({kind})"
    if not isinstance(invariant.get("allowVacuous", False), bool):
        raise UserError(f"{label}: allowVacuous must be True or False, got {invariant.get('allowVacuous')!r}")
    if kind in _SELECTOR_KINDS:
        validate_selector(invariant.get("selector"), f"{label}: selector")
    if kind in _SELECTOR_KINDS and kind not in ("refines", "in_order_per_key"):
        _require_string(invariant, "key", label)
    if kind == "at_least_once_per_message":
        _require_string(invariant, "drive", label)
        _require_string(invariant, "bodyKey", label)
    if kind == "at_least_once" and not isinstance(invariant.get("expected"), (list, tuple)):
        raise UserError(f"{label}: expected must be a list of keys, got {invariant.get('expected')!r}")
    if kind in ("every_row", "unique", "implies", "references", "aggregate"):
        validate_query(invariant.get("query"), f"{label}: query")
    if kind in ("unique", "implies", "references", "aggregate"):
        _require_string(invariant, "column", label)
    if kind == "every_row":
        conditions = invariant.get("conditions")
        if not isinstance(conditions, (list, tuple)):
            raise UserError(f"{label}: conditions must be a list of {{column, op, value}}, got {conditions!r}")
        for position, condition in enumerate(conditions):
            validate_condition(condition, f"{label}: conditions[{position}]")
    if kind == "references":
        validate_query(invariant.get("target"), f"{label}: target")
        _require_string(invariant, "targetColumn", label)
    if kind == "refines":
        _validate_refines(invariant, label)
    if kind == "in_order_per_key":
        _require_string(invariant, "groupKey", label)
        _require_string(invariant, "sequenceKey", label)
    if kind in ("min_interval_per_key", "max_interval_per_key"):
        _validate_ms(invariant, label)
    if kind == "aggregate":
        _validate_aggregate(invariant, label)


def _validate_ms(invariant: dict[str, Any], label: str) -> None:
    ms = invariant.get("ms")
    if isinstance(ms, bool) or not isinstance(ms, (int, float)) or not ms >= 0 or ms == float("inf"):
        raise UserError(f"{label}: ms must be a number of milliseconds, at least 0, got {ms!r}")


def _validate_aggregate(invariant: dict[str, Any], label: str) -> None:
    if invariant.get("fn") not in AGGREGATE_FNS:
        raise UserError(f"{label}: fn must be one of {', '.join(AGGREGATE_FNS)}, got {invariant.get('fn')!r}")
    condition = {"column": invariant["column"], "op": invariant.get("op")}
    if "value" in invariant:
        condition["value"] = invariant["value"]
    validate_condition(condition, label)
    group_by = invariant.get("groupBy")
    if group_by is not None and not isinstance(group_by, str):
        raise UserError(f"{label}: groupBy must be a column name, got {group_by!r}")


def _validate_refines(invariant: dict[str, Any], label: str) -> None:
    _require_string(invariant, "decision", label)
    follows = invariant.get("follows") or []
    if not isinstance(follows, (list, tuple)):
        raise UserError(f"{label}: follows must be a list of {{effect, decision}} path pairs")
    for position, pair in enumerate(follows):
        if not isinstance(pair, dict) or not isinstance(pair.get("effect"), str) or not isinstance(pair.get("decision"), str):
            raise UserError(f"{label}: follows[{position}] must be {{effect: path, decision: path}}, got {pair!r}")
    state = invariant.get("state")
    if state is None:
        return
    if not isinstance(state, dict) or not isinstance(state.get("key"), str):
        raise UserError(f"{label}: state must be {{read: selector, write: selector, key: path}}, got {state!r}")
    validate_selector(state.get("read"), f"{label}: state.read")
    validate_selector(state.get("write"), f"{label}: state.write")


def _check_drive_name(invariant: dict[str, Any], drive_name: Any) -> None:
    if invariant["drive"] != drive_name:
        raise UserError(
            f"invariant {invariant['name']!r} expects one effect per message of drive {invariant['drive']!r}, "
            f"but the scenario's drive is {drive_name!r}; pass the scenario's drive to at_least_once_per_message"
        )


# --- checking ------------------------------------------------------------------------

_EffectChecker = Callable[[dict[str, Any], Sequence[Effect]], "Violation | None"]

_CHECKERS: dict[str, _EffectChecker] = {
    "at_most_once_per_key": check_at_most_once_per_key,
    "at_least_once": check_at_least_once,
    "every_row": check_every_row,
    "unique": check_unique,
    "implies": check_implies,
    "references": check_references,
    "refines": check_refines,
    "in_order_per_key": check_in_order_per_key,
    "min_interval_per_key": check_min_interval_per_key,
    "max_interval_per_key": check_max_interval_per_key,
    "aggregate": check_aggregate,
}


def check_invariant(
    invariant: dict[str, Any], effects: Sequence[Effect], events: Sequence[dict[str, Any]]
) -> Violation | None:
    """One invariant against one log (``effects`` already ``Effect`` records)."""
    if invariant["kind"] == "at_least_once_per_message":
        return check_at_least_once_per_message(invariant, effects, events)
    return _CHECKERS[invariant["kind"]](invariant, effects)


def check_invariants(
    invariants: Iterable[dict[str, Any]],
    effects: Iterable[Effect | dict[str, Any]],
    events: Sequence[dict[str, Any]],
    *,
    drive: str | None = None,
) -> list[Violation]:
    """Every violation of ``invariants`` on the log, at most one per invariant, in their order.

    ``events`` are the remaining events of the scenario's drive (expectations of
    ``at_least_once_per_message`` are derived from them). Given ``drive`` (the scenario
    drive's name), an invariant naming another drive is refused.
    """
    log = as_effects(effects)
    violations = []
    for invariant in invariants:
        validate_invariant(invariant)
        if drive is not None and invariant["kind"] == "at_least_once_per_message":
            _check_drive_name(invariant, drive)
        violation = check_invariant(invariant, log, events)
        if violation is not None:
            violations.append(violation)
    return violations
