"""A compatibility date newer than the pinned workerd runs with the newest it supports, as wrangler does.

workerd itself refuses a date past its own (the Worker would not load); the host lowers it to
the date the pinned workerd package exports and answers both, and the verdict's assumptions
say which was asked and which was used. A date the runtime supports runs as asked, unsaid.
"""

import json
import subprocess
from pathlib import Path

import pytest

from eutaxy.cloudflare import at_most_once_per_key, create_platform, d1_param, d1_schema, d1_write, queue
from eutaxy.cloudflare.host import find_node
from eutaxy.cloudflare.worker import compatibility_date_assumption
from eutaxy.engine.check import check_scenario
from worker_project import scenario_in, write_project

pytestmark = pytest.mark.usefixtures("toolchain")

WORKER = """
export default {
  async queue(batch, env) {
    for (const message of batch.messages) {
      await env.DB.prepare("INSERT INTO payments (order_id) VALUES (?)").bind(message.body.orderId).run();
      message.ack();
    }
  },
};
"""


def newest_supported() -> str:
    """The date the pinned workerd package exports, read through Node as the host reads it."""
    node, node_modules = find_node(install=False)
    script = f"console.log(require({str(node_modules / 'workerd')!r}).compatibilityDate)"
    return subprocess.run([str(node), "-e", script], check=True, capture_output=True, text=True).stdout.strip()


def scenario_with_date(tmp_path: Path, date: str):
    config = {
        "name": "dated", "main": "./worker.js", "compatibility_date": date,
        "d1_databases": [{"binding": "DB"}], "queues": {"consumers": [{"queue": "payments"}]},
    }
    write_project(tmp_path, json.dumps(config), {"worker.js": WORKER, "schema.sql": "CREATE TABLE payments (order_id TEXT);\n"})
    return scenario_in(
        tmp_path, "dated",
        setup=[d1_schema("DB", "./schema.sql")],
        drive=queue("payments", [{"body": {"orderId": "o-1"}}]),
        invariants=[at_most_once_per_key("one-payment", d1_write("DB"), d1_param(0))],
        bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )


def test_a_date_past_the_runtimes_newest_runs_with_the_newest_and_says_both(tmp_path):
    """A year past the pinned workerd's date loads, runs, and the verdict names the date asked and the date used."""
    newest = newest_supported()
    asked = f"{int(newest[:4]) + 1}{newest[4:]}"
    scenario = scenario_with_date(tmp_path, asked)
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, max_runs=2, module_state_runs=0)
    assert "bounded" == verdict["kind"], verdict.get("cause")
    sentences = [s for s in verdict["provenance"]["assumptions"] if s.startswith("compatibility_date")]
    assert [compatibility_date_assumption("wrangler.jsonc", {"asked": asked, "used": newest, "newest": newest})] == sentences
    assert f"compatibility_date {asked} in wrangler.jsonc" in sentences[0] and f"runs use {newest}" in sentences[0]


def test_a_supported_date_runs_as_asked_and_is_not_mentioned(tmp_path):
    """The runtime's own date or an older one is used as given; no assumption is added."""
    scenario = scenario_with_date(tmp_path, "2026-01-01")
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, max_runs=1, module_state_runs=0)
        assert platform.date_assumption is None
    assert not any(s.startswith("compatibility_date") for s in verdict["provenance"]["assumptions"])
