"""D1 setup steps, and the statement class each D1 effect carries.

Before each run the runtime drops every user table of the binding's database
and applies the schema file again, through the real binding and outside the
effect log, so every run starts from the schema alone. A schema may be a
migrations directory, as ``wrangler d1 migrations`` keeps one: its ``.sql``
files are applied in wrangler's order (:func:`migration_files`), each statement
still known by its file and line. The step's ``rows`` are inserted after the
schema, in the same reset (:func:`seed_rows` says what a row may hold).

After each run the platform writes ``statement`` (``read``, ``write`` or
``schema``, core's :mod:`eutaxy.core.statements`) into the payload of every D1
effect, from the SQL the runtime recorded, so ``d1_write()`` and ``d1_read()``
select by what a statement does whatever method sent it.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any, Mapping

from eutaxy.core.errors import UserError
from eutaxy.core.statements import classify_d1_payload
from eutaxy.engine.holes import Hole

__all__ = ["d1_schema", "migration_files", "seed_rows", "with_statement_classes"]

_D1_PREFIX = "D1:"
#: The largest integer a seeded row may hold: D1 binds a JavaScript number, exact up to 2**53 - 1.
_SAFE_INTEGER = 2**53 - 1


def d1_schema(binding: str, path: str | Path | Hole, rows: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Reset D1 binding ``binding`` to the schema in ``path`` (relative to the scenario) before each run.

    ``path`` is a ``.sql`` file, or a migrations directory whose ``.sql`` files are all
    applied in wrangler's order (``./migrations``). It may be a draft's ``todo(...)`` hole,
    kept for ``define_scenario`` to refuse. ``rows`` (``{table: [{column: value}, ...]}``)
    are inserted after the schema on every reset (:func:`seed_rows`).
    """
    if not isinstance(binding, str) or not binding:
        raise UserError(f"d1_schema: binding must be a binding name such as 'DB', got {binding!r}")
    seeded = {} if rows is None else {"rows": seed_rows(rows, f"d1_schema({binding!r})")}
    if isinstance(path, Hole):
        return {"kind": "d1_schema", "binding": binding, "path": path, **seeded}
    if isinstance(path, Path):
        path = str(path)
    if not isinstance(path, str) or not path:
        raise UserError(f"d1_schema: path must name a .sql file or a migrations directory, got {path!r}")
    return {"kind": "d1_schema", "binding": binding, "path": path, **seeded}


def seed_rows(rows: Any, where: str) -> dict[str, list[dict[str, Any]]]:
    """The rows a D1 reset inserts, ``{table: [row, ...]}``, each value as D1 binds it.

    A value is what a D1 parameter can be: an integer (exact up to 2**53 - 1, as D1 binds a
    JavaScript number), a finite real, text, None (NULL), True/False (stored as 1/0, as D1
    binds a boolean) or bytes (a BLOB, carried as ``{"base64": ...}``). Tables are inserted
    in the order given, rows in list order; a row the schema refuses fails the reset, named
    by table and index.
    """
    if not isinstance(rows, Mapping):
        raise UserError(f"{where}: rows must be {{table: [{{column: value}}, ...]}}, got {rows!r}")
    seeded: dict[str, list[dict[str, Any]]] = {}
    for table, table_rows in rows.items():
        if not isinstance(table, str) or not table:
            raise UserError(f"{where}: rows: a table name must be a non-empty string, got {table!r}")
        if not isinstance(table_rows, (list, tuple)):
            raise UserError(f"{where}: rows[{table!r}] must be a list of rows (dicts), got {table_rows!r}", near=table)
        seeded[table] = []
        for index, row in enumerate(table_rows):
            at = f"{where}: rows[{table!r}][{index}]"
            if not isinstance(row, Mapping):
                raise UserError(f"{at} must be a dict of column -> value, got {row!r}", near=table)
            seeded[table].append({_column(at, column, table): _value(f"{at}[{column!r}]", value, table) for column, value in row.items()})
    return seeded


def _column(at: str, column: Any, table: str) -> str:
    if not isinstance(column, str) or not column:
        raise UserError(f"{at}: a column name must be a non-empty string, got {column!r}", near=table)
    return column


def _value(at: str, value: Any, table: str) -> Any:
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        if abs(value) > _SAFE_INTEGER:
            raise UserError(f"{at}: D1 binds a JavaScript number, exact only up to 2**53 - 1; got {value}", near=table)
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise UserError(f"{at}: a real must be finite, got {value!r}", near=table)
        return value
    if isinstance(value, (bytes, bytearray)):
        return {"base64": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, Mapping) and set(value) == {"base64"} and isinstance(value["base64"], str):
        # Bytes as the step carries them (a step read back, or written by hand).
        try:
            base64.b64decode(value["base64"], validate=True)
        except ValueError:
            raise UserError(f"{at}: {{'base64': ...}} must hold base64 text, got {value['base64']!r}", near=table) from None
        return dict(value)
    raise UserError(
        f"{at}: expected what D1 stores (an integer, a real, text, None, True/False or bytes), got {type(value).__name__} {value!r}",
        near=table,
    )


def migration_files(directory: Path) -> list[Path]:
    """The ``.sql`` files of a migrations directory in the order wrangler applies them.

    Wrangler lists the directory's ``.sql`` files and sorts them by name
    (``0001_create.sql`` before ``0002_index.sql``, as ``wrangler d1 migrations create``
    numbers them), so that is the order here. Other files and subdirectories are not read.
    """
    return sorted((entry for entry in directory.iterdir() if entry.suffix == ".sql" and entry.is_file()), key=lambda entry: entry.name)


def with_statement_classes(effects: list[Any]) -> list[Any]:
    """The run's effects with each D1 effect's payload carrying its ``statement`` class."""
    classified = []
    for effect in effects:
        if isinstance(effect, dict) and str(effect.get("target", "")).startswith(_D1_PREFIX):
            statement = classify_d1_payload(str(effect.get("op", "")), effect.get("payload"))
            if statement is not None:
                effect = {**effect, "payload": {**effect["payload"], "statement": statement}}
        classified.append(effect)
    return classified
