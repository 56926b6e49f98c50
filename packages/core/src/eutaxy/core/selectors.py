"""Selectors, keys and state queries: how invariants point into the effect log.

A selector is plain data, ``{"target", "op", "kind", "where"}``, matched by one pure
function; a platform's helpers (``eutaxy.cloudflare.d1_write("DB")``,
``eutaxy.aws.dynamodb_write("orders")``) return exactly that data, so a selector written by
hand and one built by a helper are the same thing. A key is a dot path into a
payload. All comparisons go through canonical JSON, so ``1`` and ``1.0`` are one value and
a dict compares by its content.

Missing values: a path that does not resolve yields ``MISSING``. ``MISSING`` satisfies only
``neq`` (it equals nothing), so ``{"result.stored": {"neq": False}}`` keeps every effect
except a put that stored nothing.
"""

from __future__ import annotations

import decimal
from typing import Any, Iterable, Sequence

from eutaxy.core.canonical import to_json
from eutaxy.core.effects import Effect
from eutaxy.core.errors import UserError

__all__ = [
    "COMPARISON_OPS",
    "MISSING",
    "compare",
    "get_path",
    "keyed_groups",
    "matches",
    "op_matches",
    "order_class",
    "row_value",
    "rows",
    "row_matches",
    "select",
    "target_matches",
    "validate_condition",
    "validate_query",
    "validate_selector",
]


class _Missing:
    """The value at a path that does not resolve (distinct from JSON ``null``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()

#: The comparison operators of ``where`` entries and row conditions.
COMPARISON_OPS = ("eq", "neq", "gt", "gte", "lt", "lte", "in", "notNull")

_SELECTOR_FIELDS = frozenset({"target", "op", "kind", "where"})


# --- paths ---------------------------------------------------------------------------


def get_path(value: Any, path: str, default: Any = MISSING) -> Any:
    """The value at a dot path (``"args.params.0"``); lists are indexed by number.

    The empty path is the value itself. A segment that does not resolve gives ``default``.
    """
    if path == "":
        return value
    current = value
    for segment in path.split("."):
        if isinstance(current, dict):
            if segment not in current:
                return default
            current = current[segment]
        elif isinstance(current, (list, tuple)):
            if not segment.isdigit():
                return default
            position = int(segment)
            if position >= len(current):
                return default
            current = current[position]
        else:
            return default
    return current


def row_value(row: Any, column: str) -> Any:
    """A row's column: the key itself when present, else a dot path into the row."""
    if isinstance(row, dict) and column in row:
        return row[column]
    return get_path(row, column)


# --- comparisons ---------------------------------------------------------------------


def _orderable(left: Any, right: Any) -> bool:
    numbers = (int, float, decimal.Decimal)  # a Decimal: a DynamoDB number with its exact digits
    if isinstance(left, bool) or isinstance(right, bool):
        return False
    if isinstance(left, numbers) and isinstance(right, numbers):
        return left == left and right == right  # NaN orders with nothing
    return isinstance(left, str) and isinstance(right, str)


def order_class(value: Any) -> str | None:
    """``"number"`` or ``"string"`` for a value that orders with others of its class, else None.

    The order invariants (``in_order_per_key``) and the aggregates (``min``, ``max``) compare
    only within one class, as the ordering comparisons do: booleans, null and NaN order with
    nothing.
    """
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool) or not isinstance(value, (int, float, decimal.Decimal)):
        return None
    return "number" if value == value else None


def compare(op: str, actual: Any, expected: Any = None) -> bool:
    """Whether ``actual`` satisfies ``op`` against ``expected``.

    Equality is canonical JSON equality. Ordering holds only between two numbers or two
    strings (never booleans, null or NaN). ``in`` takes a list of candidates. ``notNull``
    holds for a present value other than null. ``MISSING`` satisfies only ``neq``.
    """
    if op == "neq":
        return actual is MISSING or to_json(actual) != to_json(expected)
    if actual is MISSING:
        return False
    if op == "eq":
        return to_json(actual) == to_json(expected)
    if op == "notNull":
        return actual is not None
    if op == "in":
        text = to_json(actual)
        return any(text == to_json(candidate) for candidate in expected)
    if op in ("gt", "gte", "lt", "lte"):
        if not _orderable(actual, expected):
            return False
        if op == "gt":
            return actual > expected
        if op == "gte":
            return actual >= expected
        if op == "lt":
            return actual < expected
        return actual <= expected
    raise UserError(f"unknown comparison {op!r}; use one of {', '.join(COMPARISON_OPS)}")


def _is_comparison(expected: Any) -> bool:
    return (
        isinstance(expected, dict)
        and len(expected) > 0
        and all(key in COMPARISON_OPS for key in expected)
    )


def _where_holds(actual: Any, expected: Any) -> bool:
    """A ``where`` entry: a comparison dict (all its ops hold) or a value to equal."""
    if _is_comparison(expected):
        return all(compare(op, actual, operand) for op, operand in expected.items())
    return compare("eq", actual, expected)


# --- selectors -----------------------------------------------------------------------


def target_matches(pattern: str | None, target: str) -> bool:
    if pattern is None:
        return True
    if pattern.endswith("*"):
        return target.startswith(pattern[:-1])
    return target == pattern


def op_matches(pattern: str | Sequence[str] | None, op: str) -> bool:
    if pattern is None:
        return True
    if isinstance(pattern, str):
        return op == pattern
    return op in pattern


def matches(selector: dict[str, Any], effect: Effect) -> bool:
    """Whether ``effect`` is one the selector picks: every field given must hold."""
    if not target_matches(selector.get("target"), effect.target):
        return False
    if not op_matches(selector.get("op"), effect.op):
        return False
    kind = selector.get("kind")
    if kind is not None and effect.kind != kind:
        return False
    where = selector.get("where") or {}
    return all(_where_holds(get_path(effect.payload, path), expected) for path, expected in where.items())


def select(selector: dict[str, Any], effects: Iterable[Effect]) -> list[int]:
    """The log indices of the effects the selector picks, in log order."""
    return [index for index, effect in enumerate(effects) if matches(selector, effect)]


def keyed_groups(selector: dict[str, Any], effects: Sequence[Effect], key: str) -> dict[str, list[int]]:
    """The selected effects' log indices by the canonical value at ``key``, groups in order of first sight.

    An effect with no value at ``key`` has no key and is in no group (JSON ``null`` is a value).
    """
    groups: dict[str, list[int]] = {}
    for index in select(selector, effects):
        value = get_path(effects[index].payload, key)
        if value is not MISSING:
            groups.setdefault(to_json(value), []).append(index)
    return groups


def validate_selector(selector: Any, where_from: str = "selector") -> None:
    """Refuse a malformed selector with a message naming the field."""
    if not isinstance(selector, dict):
        raise UserError(f"{where_from} must be a dict like d1_write('DB') returns, got {selector!r}")
    unknown = set(selector) - _SELECTOR_FIELDS
    if unknown:
        raise UserError(f"{where_from} has unknown fields {sorted(unknown)}; it takes target, op, kind, where")
    target = selector.get("target")
    if target is not None and not isinstance(target, str):
        raise UserError(f"{where_from}.target must be a string such as 'D1:DB', got {target!r}")
    op = selector.get("op")
    if op is not None and not isinstance(op, str):
        if not isinstance(op, (list, tuple)) or not all(isinstance(item, str) for item in op):
            raise UserError(f"{where_from}.op must be a string or a list of strings, got {op!r}")
    where = selector.get("where")
    if where is not None and not isinstance(where, dict):
        raise UserError(f"{where_from}.where must map dot paths to values, got {where!r}")
    for path, expected in (where or {}).items():
        if isinstance(expected, dict) and expected and any(key in COMPARISON_OPS for key in expected):
            bad = [key for key in expected if key not in COMPARISON_OPS]
            if bad:
                raise UserError(
                    f"{where_from}.where[{path!r}] mixes comparisons with {bad}; "
                    f"comparisons are {', '.join(COMPARISON_OPS)}"
                )


# --- state queries -------------------------------------------------------------------


def _conditions(where: Iterable[dict[str, Any]] | None) -> list[dict[str, Any]]:
    return [dict(condition) for condition in (where or [])]


def rows(target: str, table: str, where: Iterable[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A state query: the rows of ``table`` in ``target``'s snapshot that meet ``where``."""
    return {"kind": "rows", "target": target, "table": table, "where": _conditions(where)}


def row_matches(row: Any, condition: dict[str, Any]) -> bool:
    """One ``{column, op, value}`` condition on one row."""
    return compare(condition["op"], row_value(row, condition["column"]), condition.get("value"))


def validate_query(query: Any, where_from: str = "query") -> None:
    """Refuse a malformed state query with a message naming the field."""
    if not isinstance(query, dict) or query.get("kind") != "rows":
        raise UserError(f"{where_from} must be a state query like d1_rows('DB', 'payments'), got {query!r}")
    for field in ("target", "table"):
        if not isinstance(query.get(field), str):
            raise UserError(f"{where_from}.{field} must be a string, got {query.get(field)!r}")
    for position, condition in enumerate(query.get("where") or []):
        validate_condition(condition, f"{where_from}.where[{position}]")


def validate_condition(condition: Any, where_from: str) -> None:
    if not isinstance(condition, dict) or not isinstance(condition.get("column"), str):
        raise UserError(f"{where_from} must be {{column, op, value}}, got {condition!r}")
    op = condition.get("op")
    if op not in COMPARISON_OPS:
        raise UserError(f"{where_from}.op must be one of {', '.join(COMPARISON_OPS)}, got {op!r}")
    if op == "in" and not isinstance(condition.get("value"), (list, tuple)):
        raise UserError(f"{where_from}: 'in' needs a list value, got {condition.get('value')!r}")
    if op != "notNull" and "value" not in condition:
        raise UserError(f"{where_from}: {op!r} needs a value")
