"""The D1 binding kind: D1 databases (``d1_databases``), its setup step, selectors and statement classes.

Before each run the runtime drops every user table of the binding's database and applies
the schema again, through the real binding and outside the effect log (runtime/bindings/d1.mjs),
so every run starts from the schema alone. A schema may be a migrations directory, as
``wrangler d1 migrations`` keeps one: its ``.sql`` files are applied in wrangler's order
(:func:`migration_files`), each statement still known by its file and line. The step's
``rows`` are inserted after the schema, in the same reset (:func:`seed_rows` says what a row
may hold). A binding the setup names no schema for is reset from the config's migrations
when it has them (the entry's ``migrations_dir``, else wrangler's default ``migrations/``
beside the config); with neither, the binding is allowed in the config (a Worker may bind
databases a scenario never touches) and touching it is UNSUPPORTED (``binding_without_setup``),
since its state would carry over from earlier runs.

After each run the platform writes ``statement`` (``read``, ``write`` or ``schema``, core's
:mod:`eutaxy.core.statements`) into the payload of every D1 effect, from the SQL the runtime
recorded (:meth:`D1Kind.with_effect_details`), so ``d1_write()`` and ``d1_read()`` select by
what a statement does whatever method sent it.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import attrs

from eutaxy.core.errors import UserError
from eutaxy.core.selectors import rows as _rows
from eutaxy.core.statements import classify_d1_payload
from eutaxy.engine.holes import Hole

from ._record import BindingKind, DraftContext, KindNames, SetupStep, effect_selector

if TYPE_CHECKING:
    from eutaxy.cloudflare.source_scan import D1Statement
    from eutaxy.cloudflare.wrangler import Binding, WranglerConfig

__all__ = [
    "D1",
    "D1Kind",
    "d1_param",
    "d1_read",
    "d1_rows",
    "d1_schema",
    "d1_write",
    "migration_files",
    "seed_rows",
    "inserted_column",
    "seeded_values",
    "with_statement_classes",
]

_D1_PREFIX = "D1:"
#: What a verdict assumes once a run used a D1 session (``withSession``, runtime/d1.mjs).
SESSION_ASSUMPTION = (
    "D1 read replication is not modelled: a session reads the primary, so reads in a session see every earlier "
    "committed write; replica lag and bookmarks' ordering are not explored. A session's bookmarks are Miniflare's "
    "local ones, counted from the database's reset."
)
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


# --- selectors ---------------------------------------------------------------------------


def d1_write(binding: str, op: str | list[str] | None = None) -> dict[str, Any]:
    """D1 statements that write (INSERT, UPDATE, DELETE, REPLACE, RETURNING) and changed a row.

    Whatever method sent them (run, all, first, raw, batch, exec): the payload's
    ``statement`` class decides (``eutaxy.core.statements``); ``op`` narrows to methods.
    """
    return effect_selector(f"D1:{binding}", op, where={"statement": "write", "result.changes": {"gt": 0}})


def d1_read(binding: str, op: str | list[str] | None = None) -> dict[str, Any]:
    """D1 statements that read (SELECT, VALUES, a WITH query that writes nothing), by any method."""
    return effect_selector(f"D1:{binding}", op, where={"statement": "read"})


def d1_param(index: int) -> str:
    """The key of a D1 statement's bound parameter ``index``: ``"args.params.<index>"``."""
    return f"args.params.{index}"


def d1_rows(binding: str, table: str, where: Iterable[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A D1 table's rows."""
    return _rows(f"D1:{binding}", table, where)


# --- where a binding's schema comes from ---------------------------------------------------


@attrs.frozen
class _SchemaSource:
    """Where a D1 binding's schema comes from: a file, a directory named in the setup, or the config's migrations."""

    binding: str
    #: The file or directory named.
    path: Path
    files: tuple[Path, ...]
    #: ``setup`` or ``config``.
    origin: str


def _source(config: "WranglerConfig", binding: "Binding", step: Mapping[str, Any] | None) -> _SchemaSource | None:
    """The schema that resets ``binding``: its step's file or directory, else the config's migrations.

    The config's are the entry's ``migrations_dir`` (which must exist and hold .sql files),
    else wrangler's default ``migrations`` beside the config when that directory exists. A
    binding with neither has none: it is unset.
    """
    if step is not None:
        path = Path(step["path"])
        if not path.is_dir():
            return _SchemaSource(binding.name, path, (path,), "setup")
        files = migration_files(path)
        assert files, (binding.name, path)  # check_step refused a directory without .sql files
        return _SchemaSource(binding.name, path, tuple(files), "setup")
    migrations_dir = binding.fields.get("migrations_dir")
    if migrations_dir is not None:
        directory = (config.path.parent / migrations_dir).resolve()
        if not directory.is_dir() or not migration_files(directory):
            raise UserError(
                f"{config.path}: d1_databases entry {binding.name!r} names migrations_dir "
                f"{migrations_dir!r}, which is not a directory holding .sql files ({directory}); fix it, "
                f"or name the schema with d1_schema({binding.name!r}, ...) in the scenario's setup"
            )
        return _SchemaSource(binding.name, directory, tuple(migration_files(directory)), "config")
    directory = (config.path.parent / "migrations").resolve()
    if not directory.is_dir() or not migration_files(directory):
        return None
    return _SchemaSource(binding.name, directory, tuple(migration_files(directory)), "config")


def _file(binding: str, path: Path) -> dict[str, str]:
    """One schema file as the runtime record reads it: its path (a failing statement is named by
    it and its line) and its text, as UTF-8 with its line ends kept."""
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"setup d1_schema({binding!r}): cannot read {path}: {error}", near=binding) from None
    return {"path": str(path), "text": text}


def _schema_sentence(config: "WranglerConfig", binding: "Binding", source: _SchemaSource) -> str:
    if source.origin != "config":
        where = "the setup's d1_schema"
    elif binding.fields.get("migrations_dir") is not None:
        where = f"the migrations_dir of {config.path.name}, as the setup names no schema for it"
    else:
        where = (
            f"wrangler's default migrations folder beside {config.path.name}, as neither the setup nor a "
            "migrations_dir names a schema for it"
        )
    names = ", ".join(path.name for path in source.files)
    return (
        f"D1 binding {source.binding} is reset by applying the {len(source.files)} .sql files of {source.path.name}/ "
        f"({where}) in wrangler's order, by file name: {names}; the d1_migrations table wrangler keeps is not created."
    )


# --- what eutaxy draft writes ----------------------------------------------------------------

#: The most ``.sql`` files read for table names.
_SQL_FILES_MAX = 50

_CREATE_TABLE = re.compile(
    r"create\s+table\s+(?:if\s+not\s+exists\s+)?[\"`\[]?([A-Za-z_][A-Za-z0-9_]*)[\"`\]]?\s*\(", re.IGNORECASE
)

#: Words that open a table constraint rather than a column definition.
_TABLE_CONSTRAINTS = frozenset({"primary", "unique", "foreign", "check", "constraint"})

#: The longest table body read for its columns.
_TABLE_BODY_MAX = 20_000


def _sql_files(folder: Path) -> list[Path]:
    return sorted(path for path in folder.glob("*.sql") if path.is_file())


def _draft_schema(folder: Path, config_folder: Path, database: "Binding", databases: int) -> tuple[Path | None, str]:
    """The schema for a D1 database and how it was found: the entry's ``migrations_dir`` (from
    ``config_folder``, the folder of the config that names it: a build's generated config names
    it from its own) when it holds ``.sql`` files (read, not guessed); else a file as the seeds
    locate it beside the user's config in ``folder`` (``schema.sql``, ``<database_name>.sql``,
    the only ``.sql`` file); else wrangler's default ``migrations/`` folder when it holds ``.sql``
    files; else a ``.sql`` file the project's package.json scripts or README name (``wrangler d1
    execute DB --file=./worker/schema.sql``); else what a search of the project below ``folder``
    finds (:func:`_searched_schema`)."""
    migrations_dir = database.fields.get("migrations_dir")
    database_name = database.fields.get("database_name")
    empty = ""
    if migrations_dir:
        directory = (config_folder / migrations_dir).resolve()
        if directory.is_dir() and migration_files(directory):
            return directory, f"the migrations_dir the config names ({migrations_dir}), applied in wrangler's order"
        empty = f"; the migrations_dir the config names ({migrations_dir}) holds no .sql file"
    named = f"{database_name}.sql" if database_name else None
    if (folder / "schema.sql").is_file():
        how = "schema.sql beside the config"
        if databases > 1:
            how += f" (one file for {databases} databases: check it is this one's)"
        return folder / "schema.sql", how + empty
    if named and (folder / named).is_file():
        return folder / named, f"{named} beside the config (the database's name){empty}"
    files = _sql_files(folder)
    if len(files) == 1:
        return files[0], f"the only .sql file beside the config ({files[0].name}){empty}"
    default = folder / "migrations"
    if not files and default.is_dir() and migration_files(default):
        return default, f"wrangler's default migrations/ folder beside the config, applied in wrangler's order{empty}"
    if files:
        listed = ", ".join(p.name for p in files[:5])
        return None, (f"{len(files)} .sql files beside the config ({listed}) and none named schema.sql or "
                      f"{named or '<database_name>.sql'}{empty}")
    mentioned = _mentioned_schema(folder, database)
    if mentioned is not None:
        path, where = mentioned
        return path, f"{_shown(path, folder)}, the .sql file {where} names{empty}"
    searched, how = _searched_schema(folder, named)
    if searched is not None:
        return searched, how + empty
    return None, (f"no schema.sql, {named or '<database_name>.sql'}, other .sql file or migrations/ folder beside the config, "
                  f"none named by package.json's scripts or the README, {how}{empty}")


#: A path ending in ``.sql`` as a script or a README writes it (``--file=./worker/schema.sql``).
_SQL_MENTION = re.compile(r"(?<![\w/.-])((?:\.{1,2}/)?[\w@+-][\w./@+-]*\.sql)\b")

#: The folders a search for a schema skips: dependencies, build output, tools' state.
_SEARCH_SKIPPED = frozenset({"node_modules", "dist", "build", "out", "coverage", "vendor", "target"})

#: How deep below the config's folder the search for a schema goes, and the most folders it reads.
_SEARCH_DEPTH = 3
_SEARCH_FOLDERS_MAX = 500


def _shown(path: Path, folder: Path) -> str:
    try:
        return path.relative_to(folder).as_posix()
    except ValueError:
        return path.as_posix()


def _mentioned_schema(folder: Path, database: "Binding") -> tuple[Path, str] | None:
    """The first ``.sql`` file that exists among those package.json's scripts name (a script that
    names the database or its binding first), then the README's, each read from its own folder
    (the config's or the nearest above it holding a package.json)."""
    names = {database.name, database.fields.get("database_name")} - {None}
    candidates: list[tuple[int, Path, str]] = []
    places = [folder, *list(folder.parents)[:3]]
    package = next((place / "package.json" for place in places if (place / "package.json").is_file()), None)
    if package is not None:
        try:
            scripts = json.loads(package.read_text(encoding="utf-8")).get("scripts") or {}
        except (OSError, UnicodeDecodeError, ValueError, AttributeError):
            scripts = {}
        if isinstance(scripts, dict):
            for script, command in scripts.items():
                if not isinstance(command, str):
                    continue
                rank = 0 if any(re.search(rf"\b{re.escape(str(name))}\b", command) for name in names) else 1
                for match in _SQL_MENTION.finditer(command):
                    candidates.append((rank, package.parent / match.group(1), f"{_shown(package, folder)}'s script {script!r}"))
    for readme in ("README.md", "README", "readme.md", "Readme.md"):
        for place in dict.fromkeys([folder, package.parent if package is not None else folder]):
            path = place / readme
            if not path.is_file():
                continue
            try:
                text = path.read_text(encoding="utf-8")[:200_000]
            except (OSError, UnicodeDecodeError):
                continue
            for match in _SQL_MENTION.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                candidates.append((2, place / match.group(1), f"{_shown(path, folder)}:{line}"))
    for _, path, where in sorted(candidates, key=lambda item: item[0]):
        if path.is_file():
            return path.resolve(), where
    return None


def _searched_schema(folder: Path, named: str | None) -> tuple[Path | None, str]:
    """A schema found by searching the project below ``folder`` (folders up to _SEARCH_DEPTH deep,
    not dependencies, build output or hidden ones): the one ``migrations`` folder holding ``.sql``
    files, else the one ``.sql`` file, else the one named ``schema.sql``, ``init.sql`` or
    ``<database_name>.sql``; and how, or (None, what the search saw)."""
    files: list[Path] = []
    migrations: list[Path] = []
    level = [folder]
    read = 0
    for _ in range(_SEARCH_DEPTH + 1):
        following: list[Path] = []
        for directory in level:
            read += 1
            if read > _SEARCH_FOLDERS_MAX:
                break
            try:
                entries = sorted(directory.iterdir())
            except OSError:
                continue
            for entry in entries:
                if entry.is_dir() and not entry.name.startswith(".") and entry.name not in _SEARCH_SKIPPED:
                    following.append(entry)
                elif entry.is_file() and entry.suffix == ".sql" and directory != folder:
                    files.append(entry)
            if directory.name == "migrations" and directory != folder / "migrations" and migration_files(directory):
                migrations.append(directory)
        level = following
    depth = f"a search of the project's folders up to {_SEARCH_DEPTH} deep"
    if len(migrations) == 1:
        return migrations[0], f"the only migrations folder {depth} found ({_shown(migrations[0], folder)}), applied in wrangler's order"
    loose = [path for path in files if not any(path.parent == directory for directory in migrations)]
    if not migrations and len(loose) == 1:
        return loose[0], f"the only .sql file {depth} found ({_shown(loose[0], folder)})"
    preferred = [path for path in loose if path.name in ("schema.sql", "init.sql", named)]
    if len(preferred) == 1:
        return preferred[0], f"{_shown(preferred[0], folder)}, the one of {len(loose)} .sql files {depth} found named as a schema"
    if not files:
        return None, f"and {depth} found no .sql file"
    listed = ", ".join(_shown(path, folder) for path in files[:5])
    return None, f"and {depth} found several ({listed}) with none to prefer"


#: The statements that write, by their first word (a WITH statement is read by what follows it).
_WRITE_VERBS = frozenset({"INSERT", "REPLACE", "UPDATE", "DELETE"})


def _verb(sql: str | None) -> str | None:
    """A statement's first word in capitals (the word after a ``WITH ... AS (...)`` prefix is not sought)."""
    if sql is None:
        return None
    match = re.match(r"\s*(\w+)", sql)
    return match.group(1).upper() if match else None


def _table_of(sql: str | None) -> str | None:
    """The table an ``INSERT [OR ...] INTO t`` or ``REPLACE INTO t`` writes, else None."""
    match = re.match(r"\s*(?:INSERT(?:\s+OR\s+\w+)?|REPLACE)\s+INTO\s+[\"`\[]?(\w+)", sql or "", re.IGNORECASE)
    return match.group(1) if match else None


def inserted_column(sql: str | None, parameter: int) -> tuple[str, str] | None:
    """The table and column an ``INSERT INTO t (a, b) VALUES (?, ?)`` writes bound parameter
    ``parameter`` (0-based) into: ``?`` counts the parameters in order, ``?N`` names one; None
    when the statement is not such an INSERT."""
    match = re.match(r"\s*(?:INSERT(?:\s+OR\s+\w+)?|REPLACE)\s+INTO\s+[\"`\[]?(\w+)[\"`\]]?\s*\(([^)]*)\)\s*VALUES\s*\(([^)]*)\)",
                     sql or "", re.IGNORECASE)
    if match is None:
        return None
    columns = [column.strip().strip('"`[]') for column in match.group(2).split(",")]
    values = [value.strip() for value in match.group(3).split(",")]
    counted = 0
    for column, value in zip(columns, values, strict=False):
        if value == "?":
            index, counted = counted, counted + 1
        elif re.fullmatch(r"\?\d+", value):
            index = int(value[1:]) - 1
            counted = max(counted, index + 1)
        else:
            continue
        if index == parameter:
            return match.group(1), column
    return None


#: An ``INSERT INTO t (a, b) VALUES (...), (...)`` with literal rows, as a schema file seeds a table.
_SEEDING_INSERT = re.compile(r"INSERT(?:\s+OR\s+\w+)?\s+INTO\s+[\"`\[]?(\w+)[\"`\]]?\s*\(([^)]*)\)\s*VALUES\s*((?:\([^;]*?\)\s*,?\s*)+)", re.IGNORECASE)
_SQL_VALUE = re.compile(r"'((?:[^']|'')*)'|(-?\d+(?:\.\d+)?)|(NULL)", re.IGNORECASE)


def seeded_values(paths: list[Path]) -> dict[tuple[str, str], list[str]]:
    """The text values the schema files' own INSERTs write, by (table, column): ``INSERT INTO files
    (id, r2_key) VALUES ('f-0', 'files/f-0')`` gives ``{("files", "r2_key"): ["files/f-0"], ...}``."""
    values: dict[tuple[str, str], list[str]] = {}
    for path in paths[:_SQL_FILES_MAX]:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for match in _SEEDING_INSERT.finditer(text):
            columns = [column.strip().strip('"`[]') for column in match.group(2).split(",")]
            for row in re.findall(r"\(((?:'(?:[^']|'')*'|[^()'])*)\)", match.group(3)):
                found = [item[0].replace("''", "'") if item[0] or not (item[1] or item[2]) else None for item in _SQL_VALUE.findall(row)]
                for column, value in zip(columns, found, strict=False):
                    if value is not None:
                        values.setdefault((match.group(1), column), []).append(value)
    return values


def _note_tables_only_updated(binding: str, writes: list[tuple["D1Statement", str | None]], draft: DraftContext) -> None:
    """A note for each table the code updates or deletes from but never inserts into, and that
    the schema seeds no row of: every run starts it empty, so those writes change nothing until
    the author gives it rows (``d1_schema(..., rows={table: [...]})``)."""
    inserted = {(_table_of(statement.sql) or "").lower() for statement, verb in writes if verb in ("INSERT", "REPLACE")}
    seeded = {table.lower() for table, _ in draft.found.get(f"{binding}/seeded", {})}
    changed: dict[str, str] = {}
    for statement, _ in writes:
        match = re.match(r"\s*(?:UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)\s+[\"`\[]?(\w+)", statement.sql or "", re.IGNORECASE)
        if match and match.group(1).lower() not in inserted | seeded:
            changed.setdefault(match.group(1), statement.where)
    for table, where in changed.items():
        draft.note("unread", f"D1 binding {binding}: {where} changes rows of {table}, which the code never inserts and the schema "
                   f"seeds none of: every run starts it empty, so give it the rows it expects (d1_schema(..., rows={{{table!r}: [...]}}))")


def _key_column(body: str) -> str | None:
    """The first column of a table body that looks like a key (``order_id``) and that the
    database does not already keep unique (no PRIMARY KEY or UNIQUE on it): where a
    ``unique`` invariant says something the schema does not."""
    depth, start, pieces = 0, 0, []
    for index, char in enumerate(body[:_TABLE_BODY_MAX]):
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                pieces.append(body[start:index])
                break
            depth -= 1
        elif char == "," and depth == 0:
            pieces.append(body[start:index])
            start = index + 1
    for piece in pieces:
        words = piece.split()
        if not words or words[0].lower() in _TABLE_CONSTRAINTS:
            continue
        name = words[0].strip('"`[]')
        declared = " ".join(words[1:]).lower()
        if "primary key" in declared or "unique" in declared:
            continue
        if re.search(r"(^|_)(id|key)$", name.lower()) or name.lower().endswith("id"):
            return name
    return None


def _tables(paths: list[Path]) -> list[tuple[str, str | None]]:
    """(table, key column or None) of each ``CREATE TABLE`` in the files, in order."""
    tables: list[tuple[str, str | None]] = []
    for path in paths[:_SQL_FILES_MAX]:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        tables += [(match.group(1), _key_column(text[match.end() :])) for match in _CREATE_TABLE.finditer(text)]
    return tables


# --- the record ----------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class D1Kind(BindingKind):
    """D1: Miniflare's real local SQLite behind a proxy (runtime/bindings/d1.mjs).

    A statement's ladder is by what it does, not by the method that sent it (``isRead`` in
    runtime/d1.mjs), so the kind's operations are the two statement classes. A database no
    setup step and no migrations reset would carry its tables from one run into the next, so
    touching one is UNSUPPORTED (``binding_without_setup``).
    """

    def resource_of(self, binding: "Binding") -> str:
        # database_id, else database_name, else the binding: the name Miniflare keys the local
        # database by (two bindings with one id share one database).
        return binding.resource or binding.fields.get("database_name") or binding.name

    def check_step(self, step: Mapping[str, Any], where: str) -> dict[str, Any]:
        if not isinstance(step.get("path"), str) or not step["path"]:
            raise UserError(f"{where} names no schema (a .sql file or a migrations directory); build it with d1_schema(...)")
        path = Path(step["path"])
        if path.is_dir() and not migration_files(path):
            raise UserError(f"{where}: the migrations directory holds no .sql file ({path})", near=step["binding"])
        checked = {"kind": self.setup_step, "binding": step["binding"], "path": step["path"]}
        if "rows" in step:
            checked["rows"] = seed_rows(step["rows"], where)
        return checked

    def setups(self, config: "WranglerConfig", steps: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any] | None]:
        """Each binding's schema files (path and text, in the order applied) and seeded rows,
        from its step or the config's migrations; None for a binding with neither."""
        by_binding = {step["binding"]: step for step in steps}
        setups: dict[str, dict[str, Any] | None] = {}
        for binding in self._bindings(config):
            step = by_binding.get(binding.name)
            source = _source(config, binding, step)
            setups[binding.name] = None if source is None else {
                "kind": self.setup_step,
                "binding": binding.name,
                "files": [_file(binding.name, path) for path in source.files],
                "rows": dict(step.get("rows") or {}) if step is not None else {},
            }
        return setups

    def assumptions(self, config: "WranglerConfig", steps: Sequence[Mapping[str, Any]]) -> list[str]:
        by_binding = {step["binding"]: step for step in steps}
        sources = [(binding, _source(config, binding, by_binding.get(binding.name))) for binding in self._bindings(config)]
        unset = [binding.name for binding, source in sources if source is None]
        sentences = ["D1 is Miniflare's local SQLite: batch() commits all or nothing; separate statements can be cut between."]
        if unset:
            sentences.append(
                f"D1 bindings without a setup step ({', '.join(unset)}) are not reset; a run touching one is UNSUPPORTED."
            )
        # A setup step's single file says nothing a reader would not expect; a directory's files do.
        return sentences + [
            _schema_sentence(config, binding, source)
            for binding, source in sources
            if source is not None and (source.origin == "config" or source.path.is_dir())
        ]

    def with_effect_details(self, effects: list[Any]) -> list[Any]:
        return with_statement_classes(effects)

    def run_assumptions(self, effects: Sequence[Any]) -> list[str]:
        """The session sentence once a run sent a statement through a D1 session (its args name it)."""
        for effect in effects:
            if isinstance(effect, dict) and str(effect.get("target", "")).startswith(_D1_PREFIX):
                args = (effect.get("payload") or {}).get("args")
                if isinstance(args, dict) and "session" in args:
                    return [SESSION_ASSUMPTION]
        return []

    def setup_hint(self, binding: str) -> str:
        return f"{self.setup_step}({json.dumps(binding)}, \"./schema.sql\")"

    def draft_setup(self, binding: "Binding", draft: DraftContext) -> tuple[dict[str, Any], list[str]]:
        databases = len(self._bindings(draft.config))
        schema, how = _draft_schema(draft.folder, draft.config.path.parent, binding, databases)
        if schema is None:
            hint = f"the .sql file that creates D1 database {binding.name}'s tables"
            draft.note("unread", f"D1 binding {binding.name}: {how}; its schema is a hole")
            step = {"kind": self.setup_step, "binding": binding.name, "path": None, "found": how}
            return step, [f"# TODO(schema): {hint}.", f"d1_schema({json.dumps(binding.name)}, {draft.hole('schema', hint)}),"]
        path = draft.relative(schema)
        guessed = not how.startswith(("schema.sql beside the config", "the migrations_dir")) or databases > 1 or "holds no .sql" in how
        draft.note("guess" if guessed else "read", f"D1 binding {binding.name}: schema {path}, {how}")
        files = migration_files(schema) if schema.is_dir() else [schema]
        draft.found[binding.name] = _tables(files)
        # The rows the schema itself inserts, for a kind whose seeds they name (R2's objects).
        draft.found[f"{binding.name}/seeded"] = seeded_values(files)
        return {"kind": self.setup_step, "binding": binding.name, "path": path, "found": how}, [
            f"d1_schema({json.dumps(binding.name)}, {json.dumps(path)}),"
        ]

    def draft_invariants(self, binding: str, draft: DraftContext) -> list[str]:
        """Examples from the statements the code prepares on the binding: over the INSERT that
        binds the events' key (its parameter's index), and ``unique`` over a key-like column of a
        table the code inserts into; none for a database the code only reads."""
        statements = [statement for statement in draft.scan.d1_statements if statement.binding == binding]
        if not statements:
            draft.note("unread", f"D1 binding {binding}: no statement prepared on it ({binding}.prepare(...)) was read, "
                       "so the draft gives no example invariant over its writes")
            return []
        writes = [(statement, _verb(statement.sql)) for statement in statements if statement.sql is not None]
        writes = [(statement, verb) for statement, verb in writes if verb in _WRITE_VERBS]
        if not writes:
            if all(statement.sql is not None for statement in statements):
                draft.note("read", f"D1 binding {binding}: the code only reads it, so the draft gives no example invariant over its writes")
            return []
        examples: list[str] = []
        _note_tables_only_updated(binding, writes, draft)
        key = draft.body_key
        inserts = [(statement, index) for statement, verb in writes if verb in ("INSERT", "REPLACE")
                   for index, name in enumerate(statement.args) if key is not None and name == key]
        if inserts:
            statement, index = inserts[0]
            table = _table_of(statement.sql) or binding.lower()
            if draft.drive_variable is not None:
                examples.append(
                    f'at_least_once_per_message("every-event-written", {draft.drive_variable}, '
                    f"d1_write({json.dumps(binding)}), d1_param({index}), {json.dumps(key)}),"
                )
            # Once per key only when no other write binds a parameter at that index (an UPDATE of
            # the row the INSERT wrote would share its key without anything going wrong).
            if all(other.sql == statement.sql or len(other.args) <= index for other, _ in writes):
                examples.insert(0, f'at_most_once_per_key("one-{table}-row-per-{key}", d1_write({json.dumps(binding)}), d1_param({index})),')
            draft.note("read", f"D1 binding {binding}: {statement.where} inserts into {table} with the event's {key} as parameter {index}")
        inserted = {_table_of(statement.sql) for statement, verb in writes if verb in ("INSERT", "REPLACE")}
        tables: list[tuple[str, str | None]] = draft.found.get(binding, [])
        for table, column in [(table, column) for table, column in tables if column and table in inserted][:3]:
            examples.append(f'unique("{table}-{column}-unique", d1_rows({json.dumps(binding)}, {json.dumps(table)}), {json.dumps(column)}),')
        return examples

    def _bindings(self, config: "WranglerConfig") -> list["Binding"]:
        return [binding for binding in config.bindings if binding.kind == self.name]


D1 = D1Kind(
    name="d1",
    names=KindNames(label="D1", plural="D1 bindings", noun="database"),
    section="d1_databases",
    resource_field="database_id",
    fields=("database_name", "migrations_dir"),
    section_note=(
        "D1 on Miniflare's SQLite, reset before each run by `d1_schema` or the entry's migrations; one no setup resets "
        "is UNSUPPORTED when touched."
    ),
    setup=SetupStep("d1_schema", without="unsupported", gives="the schema"),
    selectors=("d1_param", "d1_read", "d1_rows", "d1_write"),
    # Each statement takes the ladder of what it does (runtime/d1.mjs isRead); a batch is a write if any statement in it writes.
    operations={"read": "read", "write": "write"},
    miniflare_option="d1Databases",
    reset_phrase="drop every user table, re-apply the schema",
    production_only="D1 read replication",
)
