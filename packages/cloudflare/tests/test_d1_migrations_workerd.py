"""D1 migrations directories: every .sql file applied in wrangler's order, on real workerd.

``d1_schema("DB", "./migrations")`` and a config's ``migrations_dir`` both reset the database
by applying the directory's files sorted by name, so ``0010`` (which needs ``0002``'s column)
comes after it; a statement that fails names its own file and line.
"""

from pathlib import Path

import pytest

from eutaxy.cloudflare import at_most_once_per_key, create_platform, d1_param, d1_schema, d1_write, define_scenario, queue
from eutaxy.cloudflare.worker import prepare_worker
from eutaxy.core.errors import UserError
from eutaxy.engine.check import replay_scenario

pytestmark = pytest.mark.usefixtures("toolchain")

WORKER = """
export default {
  async queue(batch, env) {
    for (const message of batch.messages) {
      await env.DB.prepare("INSERT INTO payments (order_id, currency) VALUES (?, ?)").bind(message.body.orderId, "EUR").run();
      message.ack();
    }
  },
};
"""

CONFIG = """{
  "name": "migrated", "main": "./worker.js", "compatibility_date": "2026-01-01",
  "d1_databases": [{"binding": "DB", "database_name": "pay"%s}],
  "queues": {"consumers": [{"queue": "payments", "max_batch_size": 1}]},
}"""


def project(tmp_path: Path, *, migrations_dir: str | None = None, second: str = "ALTER TABLE payments ADD COLUMN currency TEXT;\n") -> Path:
    (tmp_path / "worker.js").write_text(WORKER)
    field = f', "migrations_dir": "{migrations_dir}"' if migrations_dir else ""
    (tmp_path / "wrangler.jsonc").write_text(CONFIG % field)
    folder = tmp_path / (migrations_dir or "migrations")
    folder.mkdir(parents=True)
    (folder / "0001_create.sql").write_text("CREATE TABLE payments (order_id TEXT NOT NULL);\n")
    (folder / "0002_currency.sql").write_text("-- the currency each payment was taken in\n" + second)
    (folder / "0010_index.sql").write_text("CREATE INDEX payments_currency ON payments (currency);\n")
    (folder / "README.md").write_text("not a migration\n")
    return tmp_path


def scenario_in(root: Path, setup):
    return define_scenario(
        name="migrated",
        root=root,
        source=root / "migrated.sim.py",
        setup=setup,
        drive=queue("payments", [{"body": {"orderId": "o-1"}}]),
        invariants=[at_most_once_per_key("one-payment", d1_write("DB"), d1_param(0))],
        bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )


def rows_after_one_run(scenario) -> list:
    with create_platform(scenario) as platform:
        result = replay_scenario(scenario, platform, {"faults": [], "turns": []}, seed="migrated")["result"]
    assert "completed" == result["end"]["kind"], result["end"]
    snapshots = [e for e in result["effects"] if (e["kind"], e["target"], e["op"]) == ("snapshot", "D1:DB", "payments")]
    assert 1 == len(snapshots), snapshots
    return snapshots[0]["payload"]["rows"]


def test_a_migrations_directory_in_the_setup_is_applied_in_wrangler_order(tmp_path):
    """0001, 0002, then 0010 (name order), so the index on 0002's column applies and the Worker's insert works."""
    root = project(tmp_path)
    assert [{"order_id": "o-1", "currency": "EUR"}] == rows_after_one_run(scenario_in(root, [d1_schema("DB", "./migrations")]))


def test_the_configs_migrations_dir_is_used_when_the_setup_names_no_schema(tmp_path):
    """With no d1_schema step, the d1_databases entry's migrations_dir resets the binding: it is not unset."""
    root = project(tmp_path, migrations_dir="db/migrations")
    assert [{"order_id": "o-1", "currency": "EUR"}] == rows_after_one_run(scenario_in(root, []))


@pytest.mark.parametrize(
    ("migrations_dir", "where"),
    [
        ("db/migrations", "(the migrations_dir of wrangler.jsonc, as the setup names no schema for it)"),
        (None, "(wrangler's default migrations folder beside wrangler.jsonc, as neither the setup nor a migrations_dir"),
    ],
)
def test_the_assumptions_say_which_files_reset_the_binding_and_where_they_were_found(tmp_path, migrations_dir, where):
    """A config's migrations_dir and wrangler's default migrations/ are told apart; the files are in order."""
    spec = prepare_worker(scenario_in(project(tmp_path, migrations_dir=migrations_dir), []))
    (sentence,) = [text for text in spec.assumptions if text.startswith("D1 binding DB is reset")]
    assert where in sentence, sentence
    assert "0001_create.sql, 0002_currency.sql, 0010_index.sql;" in sentence, sentence


def test_a_failing_migration_statement_names_its_file_and_line(tmp_path):
    """The ALTER on line 2 of 0002_currency.sql fails (no such table), and the error says where."""
    root = project(tmp_path, second="ALTER TABLE nowhere ADD COLUMN currency TEXT;\n")
    scenario = scenario_in(root, [d1_schema("DB", "./migrations")])
    with pytest.raises(UserError) as caught:
        with create_platform(scenario) as platform:
            replay_scenario(scenario, platform, {"faults": [], "turns": []}, seed="migrated")
    assert "0002_currency.sql:2: the schema of D1 binding DB does not apply" in str(caught.value)
