"""The real runtime's plans and results fit docs/protocol.schema.json, as the toy's do.

engine/tests/test_protocol.py validates what the engine exchanges with the toy platform;
this runs two corpus checks through the Cloudflare platform (the real host, Miniflare and
workerd) and validates every plan the engine sent and every RunResult the runtime answered:
a queue consumer with faults (seeded and replayed plans, fault decisions, redeliveries) and
a concurrent http drive (turn decisions). A result the schema refuses is a runtime that
drifted from the protocol, whatever the Python side's parser accepts.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from eutaxy.cloudflare import create_platform, load_scenario
from eutaxy.engine.check import check_scenario
from worker_project import write_project

ROOT = Path(__file__).resolve().parents[3]
SCHEMA_PATH = ROOT / "docs" / "protocol.schema.json"
QUEUE = ROOT / "corpus" / "planted-bugs" / "queue-duplicate-write" / "queue-duplicate-write.sim.py"
HTTP = ROOT / "corpus" / "planted-bugs" / "refund-lost-update" / "refund-lost-update.sim.py"

pytestmark = pytest.mark.usefixtures("toolchain")


def _validator(definition: str) -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    schema.pop("oneOf")
    schema["$ref"] = f"#/$defs/{definition}"
    return jsonschema.Draft202012Validator(schema)


class _Recording:
    """The platform, with every plan it was sent and every result it answered kept as data."""

    def __init__(self, platform) -> None:
        self.platform = platform
        self.plans: list[dict] = []
        self.results: list[dict] = []

    def run(self, plan):
        result = self.platform.run(plan)
        self.plans.append(json.loads(json.dumps(plan.to_data())))
        self.results.append(json.loads(json.dumps(result.to_data())))
        return result

    def describe(self) -> dict:
        return self.platform.describe()

    def close(self) -> None:
        self.platform.close()


@pytest.mark.parametrize(
    "path, verdict, decision_kinds",
    [(QUEUE, "violated", {"fault"}), (HTTP, "violated", {"turn"})],
    ids=["queue", "http"],
)
def test_every_plan_and_result_of_a_real_check_fits_the_schema(path, verdict, decision_kinds):
    """Plans and RunResults of a check on workerd validate; the check reaches its verdict."""
    scenario = load_scenario(path)
    platform = _Recording(create_platform(scenario))
    try:
        outcome = check_scenario(scenario, platform, max_runs=12)
    finally:
        platform.close()
    assert verdict == outcome["kind"]
    assert platform.results, "the check ran nothing"
    plans, results = _validator("plan"), _validator("result")
    for plan in platform.plans:
        plans.validate(plan)
    for result in platform.results:
        results.validate(result)
    seen = {decision["kind"] for result in platform.results for decision in result["decisions"]}
    assert decision_kinds <= seen
    assert any(effect["kind"] == "snapshot" for effect in platform.results[0]["effects"])


LOGGING_WORKER = """
export default {
  async queue(batch: MessageBatch<{ orderId: string }>, env: { DB: D1Database }): Promise<void> {
    for (const message of batch.messages) {
      for (let i = 0; i < 205; i++) console.log("line %d of", i, message.body);
      await env.DB.prepare("INSERT INTO orders (order_id) VALUES (?)").bind(message.body.orderId).run();
      console.warn(new RangeError("after the insert"));
    }
  },
};
"""

LOGGING_SCENARIO = """
from eutaxy.cloudflare import at_least_once, d1_param, d1_schema, d1_write, define_scenario, queue

scenario = define_scenario(
    name="logging",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=queue("orders", [{"body": {"orderId": "o-1"}}]),
    invariants=[at_least_once("recorded", d1_write("DB"), d1_param(0), ["o-1"])],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 1, "maxConcurrentInvocations": 1, "budgetMs": 120_000},
)
"""


def test_a_result_with_console_lines_past_the_cap_fits_the_schema(tmp_path):
    """A Worker that logs more than a run keeps: 200 lines, then one capped line, all in the schema."""
    config = (
        '{"name": "logging", "main": "./worker.ts", "compatibility_date": "2025-09-01",'
        ' "d1_databases": [{"binding": "DB", "database_name": "db", "database_id": "db-id"}],'
        ' "queues": {"consumers": [{"queue": "orders", "max_retries": 0}]}}'
    )
    files = {"worker.ts": LOGGING_WORKER, "schema.sql": "CREATE TABLE orders (order_id TEXT PRIMARY KEY);\n", "logging.sim.py": LOGGING_SCENARIO}
    write_project(tmp_path, config, files)
    scenario = load_scenario(tmp_path / "logging.sim.py")
    platform = _Recording(create_platform(scenario))
    try:
        check_scenario(scenario, platform, max_runs=1, module_state_runs=0)
    finally:
        platform.close()
    [result] = platform.results
    _validator("result").validate(result)
    lines = result["console"]
    assert 201 == len(lines)
    assert {"invocation": "msg-1#1", "ordinal": None, "level": "log", "text": 'line 0 of {"orderId":"o-1"}'} == {
        k: v for k, v in lines[0].items() if k != "time"
    }
    assert ("capped", "6 more console lines were not kept (a run keeps 200)") == (lines[-1]["level"], lines[-1]["text"])
