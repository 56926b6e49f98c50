"""Durable Object setup steps.

Before each run the runtime clears every object of a namespace that a run reached (its
key-value entries, its SQL tables and its alarm), seeds the objects this step names and
evicts them, so each starts from storage alone (runtime/bindings/durable_object.mjs).
Objects are named as ``idFromName`` names them; the key-value seed is what ``put`` would
store, the SQL seed (a SQLite-backed class only: ``new_sqlite_classes`` in the
migrations) the schema's statements and rows per table, inserted after the clear.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from eutaxy.core.errors import UserError

__all__ = ["durable_object"]


def durable_object(
    binding: str,
    objects: Mapping[str, Mapping[str, Any]] | None = None,
    sql: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """Reset Durable Object binding ``binding`` before each run, seeding ``objects`` and ``sql``.

    Args:
        binding: the namespace's binding name (``durable_objects.bindings[].name``).
        objects: ``{object name: {key: value}}``, the key-value entries each object starts with.
        sql: ``{object name: {"schema": "CREATE TABLE ...; ...", "rows": {table: [row, ...]}}}``
            for a SQLite-backed class; a row with no columns inserts the table's defaults.

    Raises:
        UserError: a name holds ``/`` (snapshots name tables ``<object>/<table>``), or a
            value is not JSON data.
    """
    if not isinstance(binding, str) or not binding:
        raise UserError(f"durable_object: binding must be a binding name such as 'COUNTER', got {binding!r}")
    seeded_objects = _objects(binding, objects or {})
    seeded_sql = _sql(binding, sql or {})
    return {"kind": "durable_object", "binding": binding, "objects": seeded_objects, "sql": seeded_sql}


def _name(binding: str, name: Any, what: str) -> str:
    if not isinstance(name, str) or not name or "/" in name:
        raise UserError(
            f"durable_object({binding!r}): {what} name must be a non-empty string without '/' "
            f"(snapshots name tables <object>/<table>), got {name!r}"
        )
    return name


def _json(binding: str, value: Any, where: str) -> Any:
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as error:
        raise UserError(f"durable_object({binding!r}): {where} must be JSON data: {error}") from None


def _objects(binding: str, objects: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(objects, Mapping):
        raise UserError(f"durable_object({binding!r}): objects must be {{object: {{key: value}}}}, got {objects!r}")
    seeded = {}
    for name, entries in objects.items():
        _name(binding, name, "an object's")
        if not isinstance(entries, Mapping) or not all(isinstance(key, str) for key in entries):
            raise UserError(f"durable_object({binding!r}): objects[{name!r}] must be {{key: value}} with string keys, got {entries!r}")
        seeded[name] = _json(binding, dict(entries), f"objects[{name!r}]")
    return seeded


def _sql(binding: str, sql: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(sql, Mapping):
        raise UserError(f"durable_object({binding!r}): sql must be {{object: {{'schema': ..., 'rows': ...}}}}, got {sql!r}")
    seeded = {}
    for name, seed in sql.items():
        _name(binding, name, "an object's")
        if not isinstance(seed, Mapping) or set(seed) - {"schema", "rows"}:
            raise UserError(f"durable_object({binding!r}): sql[{name!r}] takes schema and rows, got {seed!r}")
        schema = seed.get("schema", "")
        if not isinstance(schema, str):
            raise UserError(f"durable_object({binding!r}): sql[{name!r}]['schema'] must be SQL text, got {schema!r}")
        rows = seed.get("rows", {})
        if not isinstance(rows, Mapping):
            raise UserError(f"durable_object({binding!r}): sql[{name!r}]['rows'] must be {{table: [row, ...]}}, got {rows!r}")
        for table, table_rows in rows.items():
            _name(binding, table, "a table's")
            if not isinstance(table_rows, list) or not all(isinstance(row, Mapping) for row in table_rows):
                raise UserError(f"durable_object({binding!r}): sql[{name!r}]['rows'][{table!r}] must be a list of rows (dicts)")
        seeded[name] = {"schema": schema, "rows": _json(binding, {table: list(r) for table, r in rows.items()}, f"sql[{name!r}]['rows']")}
    return seeded
