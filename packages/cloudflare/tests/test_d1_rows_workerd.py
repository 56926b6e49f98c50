"""Rows seeded from the scenario: ``d1_schema(binding, path, rows=...)`` on real workerd.

The reset applies the schema, then inserts the rows (many at once, each value stored as D1's
binding stores it, which a test below holds it to), on every run: the Worker reads them and the snapshot keeps them.
Foreign keys are on (as on D1) and the reset defers them, so a child table's rows may be
listed before its parent's, and dropping tables that reference each other works run after
run. A row the schema refuses is the user's to fix: a ``UserError`` (exit 2) naming the
binding, the table and the row's index.
"""

import json
from pathlib import Path

import pytest

from eutaxy.cloudflare import create_platform, d1_rows, d1_schema, define_scenario, queue, unique
from eutaxy.core.errors import UserError
from eutaxy.engine.check import replay_scenario

pytestmark = pytest.mark.usefixtures("toolchain")

WORKER = """
export default {
  async queue(batch, env) {
    for (const message of batch.messages) {
      const { op, customer, order } = message.body;
      if (op === "order") {
        const found = await env.DB.prepare("SELECT name, vip FROM customers WHERE id = ?").bind(customer).first();
        if (found === null) throw new Error(`no customer ${customer}`);
        await env.DB.prepare("INSERT INTO orders (id, customer_id, label) VALUES (?, ?, ?)")
          .bind(order, customer, `${found.name}/${found.vip}`).run();
      } else if (op === "forget") {
        await env.DB.prepare("DELETE FROM customers WHERE id = ?").bind(customer).run();
      } else if (op === "pragmas") {
        // What D1 answers for each pragma docs/cloudflare.md names, and whether foreign keys can be turned off.
        const ask = async (sql) => {
          try {
            const row = await env.DB.prepare(sql).first();
            return row === null ? "no answer" : String(Object.values(row)[0]);
          } catch (error) {
            return `refused: ${error.message}`;
          }
        };
        for (const name of message.body.names) {
          await env.DB.prepare("INSERT INTO pragmas (name, value) VALUES (?, ?)").bind(name, await ask(`PRAGMA ${name}`)).run();
        }
        await ask("PRAGMA foreign_keys = OFF");
        await env.DB.prepare("INSERT INTO pragmas (name, value) VALUES (?, ?)").bind("foreign_keys after = OFF", await ask("PRAGMA foreign_keys")).run();
      }
      message.ack();
    }
  },
};
"""

CONFIG = """{
  "name": "seeded", "main": "./worker.js", "compatibility_date": "2026-01-01",
  "d1_databases": [{"binding": "DB", "database_name": "shop"}],
  "queues": {"consumers": [{"queue": "jobs", "max_batch_size": 1}]},
}"""

SCHEMA = """CREATE TABLE customers (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  vip INTEGER NOT NULL DEFAULT 0,
  credit REAL,
  avatar BLOB
);

CREATE TABLE orders (
  id TEXT PRIMARY KEY,
  customer_id TEXT NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
  label TEXT
);

CREATE TABLE pragmas (name TEXT PRIMARY KEY, value TEXT);
"""

#: The child table first: the reset defers foreign keys, so the order rows are listed in does not matter.
ROWS = {
    "orders": [{"id": "o-0", "customer_id": "c-2", "label": "seeded"}],
    "customers": [
        {"id": "c-1", "name": "Ada", "vip": True, "credit": 2.5, "avatar": b"\x00\x01\xff"},
        {"id": "c-2", "name": "Grace"},
    ],
}


def project(tmp_path: Path) -> Path:
    (tmp_path / "worker.js").write_text(WORKER)
    (tmp_path / "wrangler.jsonc").write_text(CONFIG)
    (tmp_path / "schema.sql").write_text(SCHEMA)
    return tmp_path


def scenario_in(root: Path, rows, events):
    return define_scenario(
        name="seeded",
        root=root,
        source=root / "seeded.sim.py",
        setup=[d1_schema("DB", "./schema.sql", rows=rows)],
        drive=queue("jobs", [{"body": body} for body in events]),
        invariants=[unique("one-order-per-id", d1_rows("DB", "orders"), "id")],
        bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )


def tables(result) -> dict[str, list]:
    assert "completed" == result["end"]["kind"], result["end"]
    return {e["op"]: e["payload"]["rows"] for e in result["effects"] if (e["kind"], e["target"]) == ("snapshot", "D1:DB")}


def replay(platform, scenario):
    return replay_scenario(scenario, platform, {"faults": [], "turns": []}, seed="seeded")["result"]


def test_seeded_rows_are_visible_to_the_worker_and_in_the_snapshot_on_every_run(tmp_path):
    """Three runs on one platform: each starts from the schema and the seeds, whatever the last one did."""
    root = project(tmp_path)
    events = [{"op": "order", "customer": "c-1", "order": "o-1"}, {"op": "forget", "customer": "c-2"}]
    scenario = scenario_in(root, ROWS, events)
    with create_platform(scenario) as platform:
        snapshots = [tables(replay(platform, scenario)) for _ in range(3)]
    assert snapshots[0] == snapshots[1] == snapshots[2]
    # The Worker read Ada's seeded row (vip bound as D1 binds True: 1); forgetting Grace cascaded to her seeded order.
    assert [{"id": "o-1", "customer_id": "c-1", "label": "Ada/1"}] == snapshots[0]["orders"]
    assert [{"id": "c-1", "name": "Ada", "vip": 1, "credit": 2.5, "avatar": [0, 1, 255]}] == snapshots[0]["customers"]


def test_rows_survive_to_the_snapshot_when_the_worker_writes_nothing(tmp_path):
    """The seeds alone are the snapshot of a run that changes nothing."""
    root = project(tmp_path)
    scenario = scenario_in(root, ROWS, [{"op": "nothing"}])
    with create_platform(scenario) as platform:
        snapshot = tables(replay(platform, scenario))
    assert [{"id": "o-0", "customer_id": "c-2", "label": "seeded"}] == snapshot["orders"]
    assert ["c-1", "c-2"] == [row["id"] for row in snapshot["customers"]]


#: What Miniflare's D1 answers to each pragma, as docs/cloudflare.md ("D1 as D1") writes it.
PRAGMAS = {
    "foreign_keys": "1",
    "defer_foreign_keys": "0",
    "recursive_triggers": "0",
    "ignore_check_constraints": "0",
    "legacy_alter_table": "0",
    "reverse_unordered_selects": "0",
    "case_sensitive_like": "no answer",
    "journal_mode": "refused: D1_ERROR: not authorized: SQLITE_AUTH",
    "synchronous": "refused: D1_ERROR: not authorized: SQLITE_AUTH",
    "busy_timeout": "refused: D1_ERROR: not authorized: SQLITE_AUTH",
    "cache_size": "refused: D1_ERROR: not authorized: SQLITE_AUTH",
    "temp_store": "refused: D1_ERROR: not authorized: SQLITE_AUTH",
    "auto_vacuum": "refused: D1_ERROR: not authorized: SQLITE_AUTH",
    "encoding": "refused: D1_ERROR: not authorized: SQLITE_AUTH",
    "page_size": "refused: D1_ERROR: not authorized: SQLITE_AUTH",
    "locking_mode": "refused: D1_ERROR: not authorized: SQLITE_AUTH",
    "foreign_keys after = OFF": "1",
}


def test_the_pragmas_d1_sets_are_as_the_docs_say(tmp_path):
    """Foreign keys on (and not turned off by PRAGMA foreign_keys = OFF), the rest SQLite's defaults or refused."""
    root = project(tmp_path)
    names = [name for name in PRAGMAS if " " not in name]
    scenario = scenario_in(root, {}, [{"op": "pragmas", "names": names}])
    with create_platform(scenario) as platform:
        snapshot = tables(replay(platform, scenario))
    assert PRAGMAS == {row["name"]: row["value"] for row in snapshot["pragmas"]}


@pytest.mark.parametrize(
    ("rows", "words"),
    [
        ({"customers": [{"id": "c-1", "name": "Ada"}, {"id": "c-2", "nickname": "G"}]}, ['rows["customers"][1]', "nickname"]),
        ({"customers": [{"id": "c-1", "name": "Ada"}, {"id": "c-1", "name": "Ada again"}]}, ['rows["customers"][1]', "UNIQUE"]),
        ({"customers": [{"id": "c-1"}]}, ['rows["customers"][0]', "NOT NULL"]),
        ({"customer": [{"id": "c-1", "name": "Ada"}]}, ['rows["customer"][0]', "no such table"]),
        (
            {"orders": [{"id": "o-1", "customer_id": "c-1"}, {"id": "o-2", "customer_id": "c-9"}], "customers": [{"id": "c-1", "name": "Ada"}]},
            ['rows["orders"][1]', "FOREIGN KEY"],
        ),
    ],
    ids=["unknown-column", "duplicate-key", "not-null", "unknown-table", "foreign-key"],
)
def test_a_row_the_schema_refuses_is_the_users_error_naming_table_and_row(tmp_path, rows, words):
    """Unknown column, a constraint, an unknown table, a dangling foreign key: exit 2, naming the row."""
    root = project(tmp_path)
    scenario = scenario_in(root, rows, [{"op": "nothing"}])
    with create_platform(scenario) as platform, pytest.raises(UserError) as raised:
        replay(platform, scenario)
    message = str(raised.value)
    assert 'setup d1_schema("DB")' in message
    for word in words:
        assert word in message, message
    assert raised.value.near == next(word for word in words if word.startswith("rows"))[6:].split('"')[0]


@pytest.mark.parametrize(
    ("rows", "words"),
    [
        ({"t": [{"x": {"a": 1}}]}, ["rows['t'][0]['x']", "dict"]),
        ({"t": [{"x": 2**53}]}, ["rows['t'][0]['x']", "2**53"]),
        ({"t": [{"x": float("nan")}]}, ["finite"]),
        ({"t": {"x": 1}}, ["rows['t'] must be a list"]),
        ({"t": [["x", 1]]}, ["rows['t'][0] must be a dict"]),
        ([{"x": 1}], ["rows must be {table"]),
    ],
)
def test_a_row_d1_cannot_hold_is_refused_when_the_scenario_loads(rows, words):
    with pytest.raises(UserError) as raised:
        d1_schema("DB", "./schema.sql", rows=rows)
    for word in words:
        assert word in str(raised.value), str(raised.value)


def test_bytes_are_carried_as_base64_and_the_step_without_rows_is_unchanged():
    assert {"kind": "d1_schema", "binding": "DB", "path": "./s.sql"} == d1_schema("DB", "./s.sql")
    step = d1_schema("DB", "./s.sql", rows={"t": [{"b": b"\x00\xff", "n": None, "f": 1.5, "i": 3, "s": "x", "ok": False}, {}]})
    assert {"t": [{"b": {"base64": "AP8="}, "n": None, "f": 1.5, "i": 3, "s": "x", "ok": False}, {}]} == step["rows"]


#: One value of each kind D1 binds, and the columns of each SQLite affinity they go into.
KIND_VALUES = [5, 0, -3, 2**53 - 1, 2.5, 2.0, -0.5, 1e300, True, False, "7", "x", "", "a\x00b", "\U0001f600 \"q\" \\", None, b"\x01\xff"]
KIND_COLUMNS = ("untyped", "t", "i", "r", "n")
KINDS_SQL = """CREATE TABLE kinds (id INTEGER PRIMARY KEY, untyped, t TEXT, i INTEGER DEFAULT 9, r REAL, n NUMERIC);
CREATE TABLE kinds_bound (id INTEGER PRIMARY KEY, untyped, t TEXT, i INTEGER DEFAULT 9, r REAL, n NUMERIC);
CREATE TABLE log (what TEXT);
CREATE TABLE seen (what TEXT);
"""
KINDS_WORKER = """
const columns = "id, " + %s.map((c) => `typeof(${c}) || ' ' || quote(${c})`).join(", ");
export default {
  async queue(batch, env) {
    for (const message of batch.messages) {
      const values = message.body.values.map((v) => (v !== null && typeof v === "object" ? new Uint8Array(v.bytes) : v));
      for (const [index, value] of values.entries()) {
        await env.DB.prepare("INSERT INTO kinds_bound (id, untyped, t, i, r, n) VALUES (?, ?, ?, ?, ?, ?)")
          .bind(index, value, value, value, value, value).run();
      }
      await env.DB.prepare("INSERT INTO kinds_bound (id) VALUES (?)").bind(values.length).run();
      const read = async (sql) => (await env.DB.prepare(sql).raw());
      const seen = {
        seeded: await read(`SELECT ${columns} FROM kinds ORDER BY id`),
        bound: await read(`SELECT ${columns} FROM kinds_bound ORDER BY id`),
        log: await read("SELECT rowid, what FROM log ORDER BY rowid"),
      };
      await env.DB.prepare("INSERT INTO seen (what) VALUES (?)").bind(JSON.stringify(seen)).run();
      message.ack();
    }
  },
};
""" % list(KIND_COLUMNS).__repr__().replace("'", '"')


def test_seeded_values_are_stored_as_the_binding_stores_them_in_listing_order(tmp_path):
    """Every kind of value in every affinity: a seeded row's typeof() and quote() are those of the same values bound.

    The reset inserts many rows at once; the values must come out as D1's binding stores
    them (a number, a boolean, text, NULL, bytes), rows with other columns take the
    schema's defaults, and rows keep their listing order (their rowids) across the statements.
    """
    (tmp_path / "worker.js").write_text(KINDS_WORKER)
    (tmp_path / "wrangler.jsonc").write_text(CONFIG)
    (tmp_path / "kinds.sql").write_text(KINDS_SQL)
    rows = {
        "log": [{"what": "b"}, {"what": "a"}],
        "kinds": [{"id": i, **{column: value for column in KIND_COLUMNS}} for i, value in enumerate(KIND_VALUES)] + [{"id": len(KIND_VALUES)}],
    }
    rows["log"] += [{"what": f"{index}"} for index in range(2, 300)]
    body = [{"bytes": list(value)} if isinstance(value, bytes) else value for value in KIND_VALUES]
    scenario = define_scenario(
        name="seeded-kinds",
        root=tmp_path,
        source=tmp_path / "seeded.sim.py",
        setup=[d1_schema("DB", "./kinds.sql", rows=rows)],
        drive=queue("jobs", [{"body": {"values": body}}]),
        invariants=[unique("one-row", d1_rows("DB", "seen"), "what")],
        bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )
    with create_platform(scenario) as platform:
        seen = [json.loads(tables(replay(platform, scenario))["seen"][0]["what"]) for _ in range(2)]
    assert seen[0] == seen[1]
    assert seen[0]["bound"] == seen[0]["seeded"]
    # The row that names only its id: the schema's default, else NULL.
    assert [len(KIND_VALUES), "null NULL", "null NULL", "integer 9"] == seen[0]["seeded"][-1][:4]
    assert [[index + 1, row["what"]] for index, row in enumerate(rows["log"])] == seen[0]["log"]
