"""What a D1 (SQLite) statement does: read, write or change the schema.

``d1_write()`` and ``d1_read()`` select by what a statement does, not by the method that
sent it: an ORM's ``INSERT ... RETURNING *`` sent through ``.all()`` is a write, a
``SELECT`` sent through ``.run()`` a read. The Cloudflare platform writes each D1 effect's
class into its payload (``statement``) from the SQL the runtime recorded.

The classes:

- ``read``: the first keyword is SELECT, VALUES or EXPLAIN, or a WITH query names no
  INSERT, UPDATE, DELETE or REPLACE (the runtime's ``isRead``, which picks the read
  fault ladder: ``d1_statements.json`` beside this module holds the vectors both test
  suites check);
- ``write``: INSERT, UPDATE, DELETE, REPLACE or UPSERT, a WITH query that does one of
  them, or any statement with RETURNING;
- ``schema``: everything else (CREATE, DROP, ALTER, PRAGMA, ...): neither selector picks it.

A batch or an ``exec`` script is a write when any of its statements writes, a read when
all read, and ``schema`` otherwise.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

__all__ = ["READ", "SCHEMA", "WRITE", "classify_d1_payload", "statement_class", "statements_class"]

READ = "read"
WRITE = "write"
SCHEMA = "schema"

_LEADING = re.compile(r"^(\s+|--[^\n]*(\n|$)|/\*.*?\*/)*", re.S)
_KEYWORD = re.compile(r"^[A-Za-z]+")
_DML = re.compile(r"\b(INSERT|UPDATE|DELETE|REPLACE)\b", re.I)
_RETURNING = re.compile(r"\bRETURNING\b", re.I)
_READ_KEYWORDS = frozenset({"SELECT", "VALUES", "EXPLAIN"})
_WRITE_KEYWORDS = frozenset({"INSERT", "UPDATE", "DELETE", "REPLACE", "UPSERT"})


def statement_class(sql: str) -> str:
    """``read``, ``write`` or ``schema`` for one statement (see the module docstring)."""
    text = _LEADING.sub("", sql, count=1)
    found = _KEYWORD.match(text)
    keyword = found.group(0).upper() if found else ""
    if keyword in _READ_KEYWORDS:
        return READ
    if keyword == "WITH":
        return WRITE if _DML.search(text) else READ
    if keyword in _WRITE_KEYWORDS or _RETURNING.search(text):
        return WRITE
    return SCHEMA


def statements_class(classes: Iterable[str]) -> str:
    """A batch's or a script's class: write if any statement writes, read if all read."""
    seen = set(classes)
    if WRITE in seen:
        return WRITE
    if seen and seen == {READ}:
        return READ
    return SCHEMA


def _script_statements(sql: str) -> list[str]:
    return [piece for piece in (part.strip() for part in re.split(r";[ \t]*(?:\r?\n|$)", sql)) if piece]


def classify_d1_payload(op: str, payload: Any) -> str | None:
    """The class of the statement(s) a D1 effect's payload records, or None if it records none."""
    if not isinstance(payload, dict) or not isinstance(payload.get("args"), dict):
        return None
    args = payload["args"]
    statements = args.get("statements")
    if isinstance(statements, list):
        return statements_class(statement_class(str(s.get("sql", ""))) for s in statements if isinstance(s, dict))
    sql = args.get("sql")
    if not isinstance(sql, str):
        return None
    if op == "exec":
        return statements_class(statement_class(piece) for piece in _script_statements(sql))
    return statement_class(sql)
