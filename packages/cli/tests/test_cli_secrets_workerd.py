"""End to end: vars and secrets reach the Worker's env in workerd, and no secret value is ever shown.

The Worker is the planted duplicate-payment consumer, made to write its env's values into
each row it inserts (and to log its key): MODE (config vars < .dev.vars < the scenario's vars), API_KEY (from
.dev.vars, a secret) and TOKEN (the scenario's secret). A violating check's text report, its
JSON report and the regression test it writes must hold neither secret's value, and show
where they went as <secret NAME>. The pinned Node toolchain is required: this test fails
rather than skips without it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

API_KEY = "dev-key-7f3a91"
TOKEN = "tok-9c2e-secret"

WORKER = """
interface Env { DB: D1Database; MODE: string; API_KEY: string; TOKEN: string }

export default {
  async queue(batch: MessageBatch<{ orderId: string }>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      console.log(`charging with key ${env.API_KEY}`);
      await env.DB.prepare("INSERT INTO payments (order_id, mode, api_key, token) VALUES (?, ?, ?, ?)")
        .bind(message.body.orderId, env.MODE, env.API_KEY, `Bearer ${env.TOKEN}`)
        .run();
      message.ack();
    }
  },
} satisfies ExportedHandler<Env, { orderId: string }>;
"""

CONFIG = """
name = "pay"
main = "./worker.ts"
compatibility_date = "2026-01-01"
compatibility_flags = ["nodejs_compat"]
vars = { MODE = "config-mode" }
d1_databases = [{ binding = "DB", database_name = "pay" }]
queues.consumers = [{ queue = "payments", max_batch_size = 1 }]
"""

SCENARIO = f"""
from eutaxy.cloudflare import at_most_once_per_key, d1_param, d1_schema, d1_write, define_scenario, queue

scenario = define_scenario(
    name="pay-secrets",
    worker={{"config": "./wrangler.toml", "vars": {{"MODE": "scenario-mode"}}, "secrets": {{"TOKEN": {TOKEN!r}}}}},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=queue("payments", [{{"body": {{"orderId": "o-1"}}}}]),
    invariants=[at_most_once_per_key("payment-recorded-once", d1_write("DB"), d1_param(0))],
    bounds={{"maxFaultsPerRun": 1, "maxRedeliveries": 2, "maxConcurrentInvocations": 1, "budgetMs": 120000}},
)
"""


@pytest.fixture
def scenario_path(tmp_path, toolchain) -> Path:
    """The example copied to a fresh folder; the pinned toolchain (the conftest's fixture) is required."""
    (tmp_path / "worker.ts").write_text(WORKER)
    (tmp_path / "wrangler.toml").write_text(CONFIG)
    (tmp_path / ".dev.vars").write_text(f"MODE=dev-mode\nAPI_KEY={API_KEY}\n")
    (tmp_path / "schema.sql").write_text("CREATE TABLE payments (order_id TEXT, mode TEXT, api_key TEXT, token TEXT);\n")
    path = tmp_path / "pay-secrets.sim.py"
    path.write_text(SCENARIO)
    return path


def test_secrets_reach_the_worker_and_no_report_or_test_shows_their_values(scenario_path, run_cli):
    """Text, JSON and the regression test of a violating run name the secrets and never hold their values."""
    text = run_cli("check", str(scenario_path), "--max-runs", "40", "--budget-ms", "120000", "--wide", "--logs")
    assert 1 == text.code, text.stderr
    as_json = run_cli("check", str(scenario_path), "--max-runs", "40", "--budget-ms", "120000", "--json")
    assert 1 == as_json.code, as_json.stderr
    data = json.loads(as_json.stdout)
    assert "payment-recorded-once" == data["violation"]["invariant"]
    written = Path(data["regressionTest"])
    for shown in (text.stdout, text.stderr, as_json.stdout, as_json.stderr, written.read_text()):
        assert API_KEY not in shown
        assert TOKEN not in shown
    # The values reached the Worker's env: its inserts carry them, shown by name; the scenario's MODE won.
    for shown in (text.stdout, as_json.stdout):
        assert "<secret API_KEY>" in shown
        assert "Bearer <secret TOKEN>" in shown
        assert "scenario-mode" in shown
        assert "charging with key <secret API_KEY>" in shown, "console output is redacted too"
    assumptions = " ".join(data["provenance"]["assumptions"])
    assert "vars MODE (the scenario)" in assumptions
    assert "secrets API_KEY (.dev.vars), TOKEN (the scenario)" in assumptions
