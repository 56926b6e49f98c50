"""Whether a scenario's invariants name what a run actually has: the typo check after the first run.

Some names only a run can tell: which tables a database holds once the schema is applied
(a Worker may create more), and which paths the selected effects' payloads carry. An
invariant over a table no snapshot has would be VIOLATED for the wrong reason ("no
snapshot"), and a key path no selected effect has would make the invariant hold vacuously.
So the engine calls :func:`check_run_fit` on the first exploration run that completed
(it injects no faults) and a misfit is the user's to fix: a ``UserError`` naming the
invariant, what it names and the nearest real names.

Only what the run shows for certain is refused: a table is checked only against a target
the run snapshotted, a key path only when the selector picked at least one effect, a column
only when the table has rows.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from eutaxy.core.effects import SNAPSHOT, Effect
from eutaxy.core.errors import UserError, nearest_names
from eutaxy.core.selectors import MISSING, get_path, row_value, select

__all__ = ["check_run_fit", "payload_paths"]

#: How many paths a message lists at most.
_PATHS_SHOWN = 12


def payload_paths(value: Any, prefix: str = "") -> list[str]:
    """Every dot path to a leaf of ``value`` (``args.params.0``), in document order."""
    if isinstance(value, Mapping) and value:
        paths: list[str] = []
        for key, item in value.items():
            paths += payload_paths(item, f"{prefix}.{key}" if prefix else str(key))
        return paths
    if isinstance(value, list) and value:
        paths = []
        for index, item in enumerate(value):
            paths += payload_paths(item, f"{prefix}.{index}" if prefix else str(index))
        return paths
    return [prefix] if prefix else []


def _key_paths(invariant: Mapping[str, Any]) -> Iterable[tuple[str, Mapping[str, Any], str]]:
    """``(field, selector, path)`` for each path an invariant reads from its selected effects."""
    selector = invariant.get("selector")
    for field in ("key", "groupKey", "sequenceKey"):
        if isinstance(selector, Mapping) and isinstance(invariant.get(field), str):
            yield field, selector, invariant[field]
    for position, pair in enumerate(invariant.get("follows") or ()):
        if isinstance(selector, Mapping) and isinstance(pair, Mapping) and isinstance(pair.get("effect"), str):
            yield f"follows[{position}].effect", selector, pair["effect"]
    state = invariant.get("state")
    if isinstance(state, Mapping) and isinstance(state.get("key"), str):
        for field in ("read", "write"):
            if isinstance(state.get(field), Mapping):
                yield f"state.key (on state.{field})", state[field], state["key"]


def _queries(invariant: Mapping[str, Any]) -> Iterable[tuple[str, Mapping[str, Any], list[str]]]:
    """``(field, query, columns read)`` for each state query of an invariant."""
    columns = [invariant[field] for field in ("column", "groupBy") if isinstance(invariant.get(field), str)]
    columns += [c["column"] for c in invariant.get("conditions") or () if isinstance(c, Mapping) and isinstance(c.get("column"), str)]
    query = invariant.get("query")
    if isinstance(query, Mapping):
        yield "query", query, columns
    target = invariant.get("target")
    if isinstance(target, Mapping) and target.get("kind") == "rows":
        yield "target", target, [invariant["targetColumn"]] if isinstance(invariant.get("targetColumn"), str) else []


def check_run_fit(invariants: Sequence[Mapping[str, Any]], effects: Sequence[Effect]) -> None:
    """Refuse an invariant naming a table, column or key path the run does not have.

    Raises:
        UserError: naming the invariant, the misfit and the nearest real names.
    """
    tables: dict[str, dict[str, list[Any]]] = {}
    for effect in effects:
        if effect.kind == SNAPSHOT:
            payload = effect.payload if isinstance(effect.payload, Mapping) else {}
            tables.setdefault(effect.target, {})[effect.op] = list(payload.get("rows") or [])
    for invariant in invariants:
        label = f"invariant {invariant.get('name')!r}"
        for field, query, columns in _queries(invariant):
            target, table = query.get("target"), query.get("table")
            if target not in tables:
                continue
            if table not in tables[target]:
                raise UserError(
                    f"{label}: its {field} reads table {table!r} of {target}, which the first run's state does not "
                    f"have; {nearest_names(str(table), tables[target], what=f'the tables of {target}')}",
                    near=str(table),
                )
            rows = [row for row in tables[target][table] if isinstance(row, Mapping)]
            present = sorted({str(column) for row in rows for column in row})
            conditions = [c.get("column") for c in query.get("where") or () if isinstance(c, Mapping)]
            for column in [*columns, *(c for c in conditions if isinstance(c, str))]:
                # A column is a row's key or, as row_value reads it, a dot path into a row
                # (``body.orderId`` into a queue message's body).
                if rows and column not in present and all(row_value(row, column) is MISSING for row in rows):
                    raise UserError(
                        f"{label}: it reads column {column!r} of {target} table {table!r}, which its rows do not "
                        f"have; {nearest_names(column, present, what='its columns')}",
                        near=column,
                    )
        for field, selector, path in _key_paths(invariant):
            picked = [effects[index] for index in select(dict(selector), effects)]
            if not picked or any(get_path(effect.payload, path) is not MISSING for effect in picked):
                continue
            paths = payload_paths(picked[0].payload)
            shown = paths[:_PATHS_SHOWN] + (["..."] if len(paths) > _PATHS_SHOWN else [])
            raise UserError(
                f"{label}: its {field} {path!r} is on none of the {len(picked)} effect(s) its selector picked in the "
                f"first run ({picked[0].target} {picked[0].op}); {nearest_names(path, shown, what='their paths')}",
                near=str(invariant.get("name")),
            )
