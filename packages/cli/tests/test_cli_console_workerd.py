"""End to end: a Worker's console output in ``eutaxy check``'s reports, on real workerd.

The Worker logs each order it receives and swallows a failed insert after logging it with
``console.error``, then acks: an injected ``error`` on the insert loses the order. The
violating run's text trace shows the error line under the insert it followed; the
comparison run's lines show only with ``--logs``; the JSON report holds every line, and two
checks of the same seed print the same bytes. Console lines are not effect points: the
trace, the schedule and the counts are those of a Worker that does not log (the twin
checked last). The pinned Node toolchain is required: this test fails rather than skips.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("toolchain")

WORKER = """
interface Env { DB: D1Database }

export default {
  async queue(batch: MessageBatch<{ orderId: string }>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      %(received)s
      try {
        await env.DB.prepare("INSERT INTO orders (order_id) VALUES (?)").bind(message.body.orderId).run();
      } catch (error) {
        %(failed)s
      }
      message.ack();
    }
  },
};
"""

SCENARIO = """
from eutaxy.cloudflare import at_least_once, d1_param, d1_schema, d1_write, define_scenario, queue

scenario = define_scenario(
    name="console-lossy",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=queue("orders", [{"body": {"orderId": "o-1"}}, {"body": {"orderId": "o-2"}}], batch_size=1),
    invariants=[at_least_once("both-orders-recorded", d1_write("DB"), d1_param(0), ["o-1", "o-2"])],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 1, "maxConcurrentInvocations": 1, "budgetMs": 120_000},
)
"""

CONFIG = """{
  "name": "console-lossy",
  "main": "./worker.ts",
  "compatibility_date": "2025-09-01",
  "d1_databases": [{ "binding": "DB", "database_name": "db", "database_id": "db-id" }],
  "queues": { "consumers": [{ "queue": "orders", "max_retries": 2 }] }
}
"""

ARGS = ("--seed", "console", "--max-runs", "40", "--budget-ms", "600000", "--no-regression")


def _project(root: Path, *, logs: bool) -> Path:
    root.mkdir()
    statements = {
        "received": 'console.log("received %s", message.body.orderId, {attempt: message.attempts});' if logs else "",
        "failed": 'console.error("insert failed for", message.body.orderId, error);' if logs else "void error;",
    }
    (root / "worker.ts").write_text(WORKER % statements)
    (root / "wrangler.jsonc").write_text(CONFIG)
    (root / "schema.sql").write_text("CREATE TABLE orders (order_id TEXT PRIMARY KEY);\n")
    (root / "lossy.sim.py").write_text(SCENARIO)
    return root / "lossy.sim.py"


def test_console_output_is_shown_under_its_effect_and_changes_nothing_else(tmp_path, run_cli):
    scenario = _project(tmp_path / "logs", logs=True)
    first = run_cli("check", str(scenario), *ARGS, "--json")
    assert 1 == first.code, first.stderr
    again = run_cli("check", str(scenario), *ARGS, "--json")
    assert first.stdout == again.stdout, "the same seed prints the same bytes, console lines included"
    data = json.loads(first.stdout)
    assert "violated" == data["kind"]
    [fault] = data["schedule"]["faults"]
    assert "error" == fault["fault"]
    lost = fault["invocation"]
    order = {"msg-1#1": "o-1", "msg-2#1": "o-2"}[lost]
    error_text = f"insert failed for {order} Error: D1_ERROR: internal error (eutaxy: error injected; the statement did not run)"
    assert [{"invocation": lost, "ordinal": 0, "level": "error", "text": error_text}] == [
        {k: v for k, v in line.items() if k != "time"} for line in data["console"] if line["level"] == "error"
    ]
    received = [(line["invocation"], line["ordinal"], line["text"]) for line in data["console"] if line["level"] == "log"]
    assert [("msg-1#1", None, 'received o-1 {"attempt":1}'), ("msg-2#1", None, 'received o-2 {"attempt":1}')] == received
    assert data["faultFree"]["console"], "the comparison run's lines are in the JSON report"

    text = run_cli("check", str(scenario), *ARGS)
    assert 1 == text.code, text.stderr
    lines = text.stdout.splitlines()
    at = [line.strip() for line in lines].index(f"console.error: {error_text}")
    # Under the insert it followed (shown beside the Worker's line that made it), indented as the fault line of that point is.
    assert lines[at - 2].split()[:3] == ["worker.ts:9", "#0", "D1:DB"], lines[at - 2]
    assert lines[at - 1].strip().startswith("!! error"), lines[at - 3:at + 1]
    assert lines[at - 1].index("!!") == lines[at].index("console.error")
    assert any(f"console.log: received {order}" in line for line in lines[:at])
    assert any(line.startswith("Console output of the comparison run:") and "--logs shows them" in line for line in lines)

    shown = run_cli("check", str(scenario), *ARGS, "--logs")
    assert 1 == shown.code, shown.stderr
    assert "Console output of the comparison run:\n" in shown.stdout
    assert "msg-1#1  console.log: received o-1" in shown.stdout

    quiet = json.loads(run_cli("check", str(_project(tmp_path / "quiet", logs=False)), *ARGS, "--json").stdout)
    assert "console" not in quiet and "console" not in quiet["faultFree"]
    for field in ("schedule", "keptEvents", "violation", "trace", "coverage", "invariants"):
        assert quiet[field] == data[field], field
    assert quiet["provenance"]["runs"] == data["provenance"]["runs"]
