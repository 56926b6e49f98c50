"""D1 setup steps, and the statement class each D1 effect carries.

Before each run the runtime drops every user table of the binding's database
and applies the schema file again, through the real binding and outside the
effect log, so every run starts from the schema alone. A schema may be a
migrations directory, as ``wrangler d1 migrations`` keeps one: its ``.sql``
files are applied in wrangler's order (:func:`migration_files`), each statement
still known by its file and line.

After each run the platform writes ``statement`` (``read``, ``write`` or
``schema``, core's :mod:`eutaxy.core.statements`) into the payload of every D1
effect, from the SQL the runtime recorded, so ``d1_write()`` and ``d1_read()``
select by what a statement does whatever method sent it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eutaxy.core.errors import UserError
from eutaxy.core.statements import classify_d1_payload
from eutaxy.engine.holes import Hole

__all__ = ["d1_schema", "migration_files", "with_statement_classes"]

_D1_PREFIX = "D1:"


def d1_schema(binding: str, path: str | Path | Hole) -> dict[str, Any]:
    """Reset D1 binding ``binding`` to the schema in ``path`` (relative to the scenario) before each run.

    ``path`` is a ``.sql`` file, or a migrations directory whose ``.sql`` files are all
    applied in wrangler's order (``./migrations``). It may be a draft's ``todo(...)`` hole,
    kept for ``define_scenario`` to refuse.
    """
    if not isinstance(binding, str) or not binding:
        raise UserError(f"d1_schema: binding must be a binding name such as 'DB', got {binding!r}")
    if isinstance(path, Hole):
        return {"kind": "d1_schema", "binding": binding, "path": path}
    if isinstance(path, Path):
        path = str(path)
    if not isinstance(path, str) or not path:
        raise UserError(f"d1_schema: path must name a .sql file or a migrations directory, got {path!r}")
    return {"kind": "d1_schema", "binding": binding, "path": path}


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
