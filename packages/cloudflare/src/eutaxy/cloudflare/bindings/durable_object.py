"""The Durable Object binding kind: the Worker's own classes (``durable_objects.bindings``), run in workerd.

The objects are the real ones workerd runs; the runtime record (runtime/bindings/durable_object.mjs)
is the caller's side of them. Before each run it clears every object of a namespace that a run
reached (its key-value entries, its SQL tables and its alarm), seeds the objects the
``durable_object`` step names and evicts them, so each starts from storage alone. Objects are
named as ``idFromName`` names them; the key-value seed is what ``put`` would store, the SQL seed
(a SQLite-backed class only: ``new_sqlite_classes`` in the migrations) the schema's statements
and rows per table, inserted after the clear.

What the record reads of the config beyond its bindings (:class:`ObjectClasses`): the classes
the migrations leave defined, and which of them are SQLite-backed, and the classes a
``containers`` entry names. A binding to a class of another script (``script_name``) or to a
container's class is not run: it stands in as a trap (``unmodelled``).

Its policy, sent in its load-message entry and read there by the runtime record: a stub call
takes the write ladder, an alarm and a WebSocket message delivered to the object the read
ladder (nobody waits for an alarm's answer; a message's sender hears nothing back), and a
failed alarm is retried up to :data:`ALARM_RETRIES_MAX` times, the first after
:data:`ALARM_FIRST_RETRY_DELAY_MS`, each later one twice the one before.
bindings/ladders.json holds the rows, read by both suites.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

import attrs

from eutaxy.core.errors import UserError
from eutaxy.core.selectors import rows

from ._record import BindingKind, DraftContext, KindNames, SetupStep, effect_selector

if TYPE_CHECKING:
    from eutaxy.cloudflare.wrangler import Binding, WranglerConfig, _Reader

__all__ = [
    "ALARM_FIRST_RETRY_DELAY_MS",
    "ALARM_RETRIES_MAX",
    "DURABLE_OBJECT",
    "DurableObjectKind",
    "ObjectClasses",
    "do_call",
    "durable_object",
    "durable_object_rows",
    "durable_object_table",
]

#: Cloudflare retries a failed alarm() up to six times (Durable Objects, Alarms: "retried with
#: exponential backoff starting at 2 second delay for up to 6 retries").
ALARM_RETRIES_MAX = 6
#: The first retry's delay; each later one doubles it (2 s, 4 s, 8 s, ...), as the same page says.
ALARM_FIRST_RETRY_DELAY_MS = 2000


# --- the setup step ------------------------------------------------------------------------


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
    seeded_objects = _per_object(binding, objects or {}, "objects", "{object: {key: value}}", _entries)
    seeded_sql = _per_object(binding, sql or {}, "sql", "{object: {'schema': ..., 'rows': ...}}", _sql_seed)
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


def _per_object(binding: str, seeds: Any, field: str, shape: str, seed: Callable[[str, str, Any], Any]) -> dict[str, Any]:
    """The step's ``objects`` or ``sql`` (``field``, written as ``shape``): each object's name checked,
    and its seed checked and copied by ``seed(binding, name, value)``."""
    if not isinstance(seeds, Mapping):
        raise UserError(f"durable_object({binding!r}): {field} must be {shape}, got {seeds!r}")
    seeded = {}
    for name, value in seeds.items():
        _name(binding, name, "an object's")
        seeded[name] = seed(binding, name, value)
    return seeded


def _entries(binding: str, name: str, entries: Any) -> Any:
    """One object's key-value entries (``objects[name]``)."""
    if not isinstance(entries, Mapping) or not all(isinstance(key, str) for key in entries):
        raise UserError(f"durable_object({binding!r}): objects[{name!r}] must be {{key: value}} with string keys, got {entries!r}")
    return _json(binding, dict(entries), f"objects[{name!r}]")


def _sql_seed(binding: str, name: str, seed: Any) -> dict[str, Any]:
    """One SQLite-backed object's schema and rows (``sql[name]``)."""
    if not isinstance(seed, Mapping) or set(seed) - {"schema", "rows"}:
        raise UserError(f"durable_object({binding!r}): sql[{name!r}] takes schema and rows, got {seed!r}")
    schema = seed.get("schema", "")
    if not isinstance(schema, str):
        raise UserError(f"durable_object({binding!r}): sql[{name!r}]['schema'] must be SQL text, got {schema!r}")
    table_rows = seed.get("rows", {})
    if not isinstance(table_rows, Mapping):
        raise UserError(f"durable_object({binding!r}): sql[{name!r}]['rows'] must be {{table: [row, ...]}}, got {table_rows!r}")
    for table, listed in table_rows.items():
        _name(binding, table, "a table's")
        if not isinstance(listed, list) or not all(isinstance(row, Mapping) for row in listed):
            raise UserError(f"durable_object({binding!r}): sql[{name!r}]['rows'][{table!r}] must be a list of rows (dicts)")
    return {"schema": schema, "rows": _json(binding, {table: list(r) for table, r in table_rows.items()}, f"sql[{name!r}]['rows']")}


# --- selectors -----------------------------------------------------------------------------


def do_call(binding: str, method: str | list[str] | None = None) -> dict[str, Any]:
    """Durable Object stub calls that reached their object (``DO:<binding>``), by method.

    A call faulted before it reached the object (crash_before, error) has no result, so it is
    not selected; an ambiguous call ran in the object and is, as is a call whose method threw.
    ``method`` is the stub method or awaited property (``fetch`` for stub.fetch()).
    """
    return effect_selector(f"DO:{binding}", method)


def durable_object_rows(binding: str, object_name: str, where: Iterable[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A Durable Object's key-value entries at the end of a run, as rows ``{key, value}``."""
    return rows(f"DO:{binding}", object_name, where)


def durable_object_table(binding: str, object_name: str, table: str, where: Iterable[dict[str, Any]] | None = None) -> dict[str, Any]:
    """One SQL table of a SQLite-backed Durable Object at the end of a run (``<object>/<table>``)."""
    return rows(f"DO:{binding}", f"{object_name}/{table}", where)


# --- what the kind reads of the config -----------------------------------------------------


@attrs.frozen(kw_only=True)
class ObjectClasses:
    """What the Durable Object kind reads of the config beyond its bindings."""

    #: Classes the migrations make SQLite-backed (``new_sqlite_classes``, renames followed).
    sqlite: frozenset[str] = frozenset()
    #: Every class the migrations leave defined, SQLite-backed or key-value-backed
    #: (``new_classes`` and ``new_sqlite_classes``, renames followed, deleted ones gone).
    migrated: frozenset[str] = frozenset()
    #: How many migrations the config lists (the next tag a refusal suggests follows them).
    migration_count: int = 0
    #: Classes a ``containers`` entry names: their Durable Object bindings stand in as traps.
    containers: frozenset[str] = frozenset()


def _migrated_classes(reader: "_Reader", data: Mapping[str, Any], *, sqlite_only: bool) -> frozenset[str]:
    """The classes the migrations, applied in order, leave defined (``sqlite_only``: SQLite-backed)."""
    migrations = data.get("migrations", [])
    if not isinstance(migrations, list):
        raise reader.error("migrations must be a list")
    classes: set[str] = set()
    for index, migration in enumerate(migrations):
        where = f"migrations[{index}]"
        if not isinstance(migration, dict):
            raise reader.error(f"{where} must be an object")
        for field in ("new_sqlite_classes", "deleted_classes", "new_classes"):
            value = migration.get(field, [])
            if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
                raise reader.error(f"{where}.{field} must be a list of class names")
        classes |= set(migration.get("new_sqlite_classes", []))
        if not sqlite_only:
            classes |= set(migration.get("new_classes", []))
        classes -= set(migration.get("deleted_classes", []))
        renamed = migration.get("renamed_classes", [])
        if not isinstance(renamed, list):
            raise reader.error(f"{where}.renamed_classes must be a list of {{from, to}}")
        for rename in renamed:
            if isinstance(rename, dict) and rename.get("from") in classes and isinstance(rename.get("to"), str):
                classes.discard(rename["from"])
                classes.add(rename["to"])
    return frozenset(classes)


def _config_reader(config: "WranglerConfig") -> "_Reader":
    """A reader of the config's text, for a refusal at the line that causes it."""
    from eutaxy.cloudflare.wrangler import _Reader

    return _Reader(path=config.path, text=config.path.read_text(encoding="utf-8") if config.path.is_file() else "")


# --- the record ----------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class DurableObjectKind(BindingKind):
    """Durable Objects: the Worker's own classes, wrapped by the bundle (objects.mjs) and run in workerd.

    A binding's resource is its class. A namespace no ``durable_object`` step resets would carry
    its objects' storage from one run into the next, so touching one is UNSUPPORTED
    (``binding_without_setup``).
    """

    def read_settings(self, reader: "_Reader", data: Mapping[str, Any]) -> ObjectClasses:
        containers = {reader.string(entry, "class_name", f"containers[{index}]") for index, entry in enumerate(reader.entries(dict(data), "containers"))}
        return ObjectClasses(
            sqlite=_migrated_classes(reader, data, sqlite_only=True),
            migrated=_migrated_classes(reader, data, sqlite_only=False),
            migration_count=len(data.get("migrations", [])),
            containers=frozenset(containers),
        )

    def callee_settings(self, settings: Any, callee: Any, alias: Callable[[str], str]) -> ObjectClasses:
        """The caller's classes with the callee's under their aliases (its migrations and containers)."""
        own = settings if isinstance(settings, ObjectClasses) else ObjectClasses()
        theirs = callee if isinstance(callee, ObjectClasses) else ObjectClasses()
        return ObjectClasses(
            sqlite=own.sqlite | {alias(name) for name in theirs.sqlite},
            migrated=own.migrated | {alias(name) for name in theirs.migrated},
            migration_count=own.migration_count,
            containers=own.containers | {alias(name) for name in theirs.containers},
        )

    def classes(self, config: "WranglerConfig") -> ObjectClasses:
        """What the kind read of the config's migrations and containers."""
        settings = config.settings_of(self.name)
        return settings if isinstance(settings, ObjectClasses) else ObjectClasses()

    def _declared(self, config: "WranglerConfig") -> list["Binding"]:
        return [binding for binding in config.bindings if binding.kind == self.name]

    def resources(self, config: "WranglerConfig") -> dict[str, str]:
        """Binding -> class of each binding Eutaxy runs: a class of the Worker's own script that no
        ``containers`` entry names (those stand in as traps, :meth:`unmodelled`)."""
        containers = self.classes(config).containers
        return {
            binding.name: self.resource_of(binding)
            for binding in self._declared(config)
            if "script_name" not in binding.fields and self.resource_of(binding) not in containers
        }

    def unmodelled(self, config: "WranglerConfig") -> list[tuple[str, str]]:
        # A class of another Worker's script is not this Worker's to run; a container's class
        # needs the container Cloudflare starts beside it.
        declared = self._declared(config)
        containers = self.classes(config).containers
        trapped = [(self.name, binding.name) for binding in declared if "script_name" in binding.fields]
        return trapped + [
            ("container", binding.name)
            for binding in declared
            if "script_name" not in binding.fields and self.resource_of(binding) in containers
        ]

    def check_config(self, config: "WranglerConfig") -> None:
        """Each class the Worker runs is in a migration, as ``wrangler deploy`` requires: else a
        UserError at the binding's line naming the migration to add."""
        classes = self.classes(config)
        for binding, class_name in self.resources(config).items():
            if class_name in classes.migrated:
                continue
            tag = f"v{classes.migration_count + 1}"
            raise _config_reader(config).error(
                f"Durable Object class {class_name!r} (binding {binding!r}) is in no migration, so wrangler deploy would refuse it; "
                f'add one that creates it to "migrations": {{"tag": "{tag}", "new_sqlite_classes": ["{class_name}"]}} '
                "(new_sqlite_classes is the SQLite backend Cloudflare recommends; new_classes makes it key-value-backed)",
                key="class_name",
                written=class_name,
            )

    def missing_export_error(self, config: "WranglerConfig", classes: list[str], entry: Path) -> UserError:
        """At the line of the first class's binding, naming the class and the entry."""
        bound = {class_name: binding for binding, class_name in reversed(list(self.resources(config).items()))}
        first = classes[0]
        try:
            shown = entry.resolve().relative_to(config.path.parent.resolve())
        except ValueError:
            shown = entry
        others = f" (nor {', '.join(repr(name) for name in classes[1:])})" if len(classes) > 1 else ""
        return _config_reader(config).error(
            f"durable_objects binding {bound.get(first, '?')!r} names class {first!r}, which the Worker's entry {shown} does not export{others}; "
            f"export the class from it (export class {first} extends DurableObject {{ ... }})",
            key="class_name",
            written=first,
        )

    def check_config_step(self, config: "WranglerConfig", step: Mapping[str, Any], where: str) -> dict[str, Any]:
        """The ``durable_object`` step as the load message carries it: a sql seed needs a SQLite-backed class."""
        binding = step["binding"]
        class_name = self.resources(config)[binding]
        if step.get("sql") and class_name not in self.classes(config).sqlite:
            raise UserError(
                f"{where} seeds SQL storage, but class {class_name} is not "
                f"SQLite-backed; add a migration to {config.path.name} that creates it with "
                f'"new_sqlite_classes": ["{class_name}"] (a class created with "new_classes" keeps key-value storage: '
                f'name it in new_sqlite_classes there instead); with no migrations yet, '
                f'"migrations": [{{"tag": "v1", "new_sqlite_classes": ["{class_name}"]}}]',
                near=str(binding),
            )
        return {"kind": self.setup_step, "binding": binding, "objects": step.get("objects") or {}, "sql": step.get("sql") or {}}

    def policy(self) -> dict[str, Any]:
        retries = [ALARM_FIRST_RETRY_DELAY_MS * 2**retry for retry in range(ALARM_RETRIES_MAX)]
        return {**super().policy(), "alarmRetryDelaysMs": retries}

    def miniflare_options(self, config: "WranglerConfig") -> dict[str, Any]:
        sqlite = self.classes(config).sqlite
        objects = self.resources(config).items()
        return {"durableObjects": {binding: {"className": class_name, "useSQLite": class_name in sqlite} for binding, class_name in objects}}

    def load_entry(self, config: "WranglerConfig", steps: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        # Each binding's settings: its class and whether the migrations make it SQLite-backed.
        entry = super().load_entry(config, steps)
        sqlite = self.classes(config).sqlite
        for name, class_name in self.resources(config).items():
            entry["bindings"][name]["settings"] = {"className": class_name, "sqlite": class_name in sqlite}
        return entry

    def wrapped_classes(self, config: "WranglerConfig") -> list[str]:
        return sorted(set(self.resources(config).values()))

    def setup_hint(self, binding: str) -> str | None:
        return f"{self.setup_step}({json.dumps(binding)})"

    def assumptions(self, config: "WranglerConfig", steps: Sequence[Mapping[str, Any]]) -> list[str]:
        own = sorted(self.resources(config))
        delays = ", ".join(f"{delay_ms // 1000} s" for delay_ms in self.policy()["alarmRetryDelaysMs"][:3])
        return [
            f"Durable Objects ({', '.join(own)}) are the ones workerd runs: storage, transactions, coalesced writes, "
            "blockConcurrencyWhile and the input and output gates are the runtime's own. Each stub call is one effect "
            "(crash_before and error: it never reached the object; ambiguous: the object ran it and the answer was lost; "
            "crash_after: the caller died after it); a crash inside the object resets it with ctx.abort().",
            "Durable Object alarms fire in virtual time, taken over from each object's storage: one alarm per object, "
            f"alarm() one effect, a failed alarm retried after {delays} up to {_count(ALARM_RETRIES_MAX)} retries, at "
            "most alarmsPerObject alarms per object per run (an alarm still pending past that, or a retry a lower "
            "maxRedeliveries stops, is a cut the verdict names).",
            "Work a Durable Object leaves running after its answer (a promise, a timer, ctx.waitUntil, an effect it "
            "issued and did not await) is the object's own invocation, DO:<binding>/<object>/after: in a sequential run "
            "it runs to rest before the next event, in a concurrent run its effects and timers are turns; a crash in it "
            "resets the object, not the caller; work that never settles fires at most afterWorkTimerLimit timers (a cut the verdict names).",
        ]

    def concurrency_assumptions(self, config: "WranglerConfig") -> list[str]:
        return [
            "In a concurrent run a call into a Durable Object (or its alarm) is one turn, and so is each outbound "
            "effect the object's code makes during the call (a fetch, a D1 call): the object's input gate is open "
            "while it waits, so another call or its alarm may enter there; its storage operations are not turns "
            "(workerd's gates hold them), nor is anything it does inside blockConcurrencyWhile. A call enters an "
            "object only where the object waits on such an effect, not while it awaits a timer of its own (where "
            "workerd's gate is open too). Work an object leaves running after its answer (DO:<binding>/<object>/after) "
            "takes part in the turns as any invocation: each of its effects is a turn inside the object (a call may enter "
            "while it waits), its timers are timer turns, and an effect a call opened, did not await and that still waits "
            "for its turn at the answer becomes the work's."
        ]

    def draft_setup(self, binding: "Binding", draft: DraftContext) -> tuple[dict[str, Any], list[str]]:
        draft.note("guess", f"Durable Object binding {binding.name} (class {self.resource_of(binding)}): every object starts each run "
                   f"with empty storage ({self.setup_step}({binding.name!r})); give it the objects it should hold")
        step: dict[str, Any] = {"kind": self.setup_step, "binding": binding.name}
        missing = _uncreated_tables(draft.scan.object_sql)
        if not missing:
            return step, [f"{self.setup_step}({json.dumps(binding.name)}),"]
        tables = ", ".join(missing)
        objects = list(dict.fromkeys(literal for name, _, literal, _ in draft.scan.object_names if name == binding.name and literal))
        if not objects:
            draft.note("unread", f"Durable Object binding {binding.name}: its code writes SQL tables no code creates ({tables}), and "
                       "its objects are not addressed by literal names: seed each object's tables with sql={name: {'schema': ...}}")
            return step, [f"{self.setup_step}({json.dumps(binding.name)}),"]
        schema = "; ".join(f"CREATE TABLE {table} ({', '.join(columns)})" for table, columns in missing.items())
        sql = {name: {"schema": schema} for name in objects}
        draft.note("guess", f"Durable Object binding {binding.name}: its code writes SQL tables no code creates ({tables}): each object "
                   f"it addresses by name ({', '.join(objects)}) starts with them, their columns as its INSERTs name them; "
                   "write the real schema")
        step["sql"] = sql
        return step, [f"{self.setup_step}({json.dumps(binding.name)}, sql={draft.python(sql)}),"]

    def draft_invariants(self, binding: str, draft: DraftContext) -> list[str]:
        """An object addressed by the events' key (``env.B.getByName(order.orderId)``) is reached
        at least once per event; no example otherwise (an object serves many calls, so none is
        "once per object")."""
        key = draft.body_key
        if key is None or draft.drive_variable is None:
            return []
        examples: list[str] = []
        addressed = [(argument, literal, where) for name, argument, literal, where in draft.scan.object_names if name == binding]
        named = [where for argument, _, where in addressed if argument == key]
        if named:
            draft.note("read", f"Durable Object binding {binding}: {named[0]} addresses the object by the event's {key}")
            examples.append(f'at_least_once_per_message("every-event-reaches-its-{binding.lower()}", {draft.drive_variable}, '
                            f'do_call({json.dumps(binding)}), "args.object", {json.dumps(key)}),')
        # A table an object addressed by a literal name inserts the event's key into: one row per key.
        column_names = {key, re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", key).lower()}
        for literal in dict.fromkeys(literal for _, literal, _ in addressed if literal):
            for table, columns in _inserted_columns(draft.scan.object_sql).items():
                column = next((column for column in columns if column in column_names), None)
                if column is not None:
                    examples.append(f'unique("{table}-{column}-unique", durable_object_table({json.dumps(binding)}, '
                                    f'{json.dumps(literal)}, {json.dumps(table)}), {json.dumps(column)}),')
        return examples

    def draft_section_notes(self, draft: DraftContext) -> None:
        for binding in self._declared(draft.config):
            script = binding.fields.get("script_name")
            if script is not None and script not in draft.callees:
                draft.note("unproxied", f"Durable Object binding {binding.name} (class {self.resource_of(binding)} of Worker {script}) "
                           "belongs to another Worker: a run that touches it ends UNSUPPORTED")
        containers = self.classes(draft.config).containers
        for binding in self._declared(draft.config):
            if "script_name" not in binding.fields and self.resource_of(binding) in containers:
                draft.note("unproxied", f"Durable Object binding {binding.name} (class {self.resource_of(binding)}) runs a container, "
                           "which is not started in this build: a run that touches it ends UNSUPPORTED")


def _inserted_columns(statements: Sequence[str]) -> dict[str, list[str]]:
    """Each table an object's SQL inserts into, with the columns its first INSERT names (a
    table no INSERT names columns of is left out)."""
    tables: dict[str, list[str]] = {}
    for sql in statements:
        for match in re.finditer(r"INSERT\s+(?:OR\s+\w+\s+)?INTO\s+[\"`\[]?(\w+)[\"`\]]?\s*\(([^)]*)\)", sql, re.IGNORECASE):
            columns = [column.strip().strip('"`[]') for column in match.group(2).split(",") if column.strip()]
            if columns:
                tables.setdefault(match.group(1), columns)
    return tables


def _uncreated_tables(statements: Sequence[str]) -> dict[str, list[str]]:
    """The tables an object's SQL inserts into that none of it creates, each with the columns its first INSERT names."""
    created = {match.group(1).lower() for sql in statements
               for match in re.finditer(r"CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?[\"`\[]?(\w+)", sql, re.IGNORECASE)}
    return {table: columns for table, columns in _inserted_columns(statements).items() if table.lower() not in created}


def _count(number: int) -> str:
    """A small count as the sentences spell it."""
    words = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}
    return words.get(number, str(number))


DURABLE_OBJECT = DurableObjectKind(
    name="durable_object",
    names=KindNames(label="DO", title="Durable Object", plural="Durable Object bindings", noun="namespace", reset_subject="Durable Objects"),
    section="durable_objects.bindings",
    binding_field="name",
    resource_field="class_name",
    resource_required=True,
    fields=("script_name",),
    section_note=(
        "The Worker's own classes run in workerd, reset by `durable_object`; a class of another script (`script_name`) "
        "stands in as a trap (UNSUPPORTED when touched)."
    ),
    setup=SetupStep("durable_object", without="unsupported", gives="the objects"),
    selectors=("do_call", "durable_object_rows", "durable_object_table"),
    # A stub call's answer can be lost after the object ran it (ambiguous); nobody waits for an
    # alarm's answer or a WebSocket message's, so theirs cannot.
    operations={"call": "write", "alarm": "read", "webSocketMessage": "read"},
    miniflare_option="durableObjects",
    reset_phrase="clear, seed and evict each object whose code ran since the last reset",
    routes_agents=True,
    # Alarms and an object's work after its answer need a Durable Object of the Worker's own.
    bounds=("alarmsPerObject", "afterWorkTimerLimit"),
)
