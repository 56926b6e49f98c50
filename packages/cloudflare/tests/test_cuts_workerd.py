"""Bounds are cuts, never semantics, on workerd (issue 27): a queue consumer with max_retries 3
whose message succeeds on its fourth delivery.

With no maxRedeliveries the consumer's own max_retries decides, as on Cloudflare: the fourth
delivery happens and the check is BOUNDED with no cut. With maxRedeliveries 2 the run stops
before it: the message is cut, neither dead-lettered nor lost, so at_least_once_per_message
holds it to nothing and the verdict is BOUNDED with the cut named, never VIOLATED.
"""

from pathlib import Path

import pytest

from eutaxy.cloudflare import at_least_once_per_message, create_platform, d1_param, d1_schema, d1_write, define_scenario, queue
from eutaxy.engine.check import check_scenario

pytestmark = pytest.mark.usefixtures("toolchain")

WORKER = """
interface Env { DB: D1Database }
type Job = { jobId: string; slow?: boolean };

export default {
  async queue(batch: MessageBatch<Job>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      // A slow job fails until its fourth delivery (max_retries 3 allows exactly that).
      if (message.body.slow && message.attempts < 4) throw new Error(`not yet (attempt ${message.attempts})`);
      await env.DB.prepare("INSERT INTO jobs (job_id) VALUES (?) ON CONFLICT(job_id) DO NOTHING").bind(message.body.jobId).run();
    }
  },
};
"""

#: One message per delivery (max_batch_size 1), so the fast job's success is an invocation of its own.
CONFIG = """{
  "name": "cuts", "main": "./worker.ts", "compatibility_date": "2026-01-01",
  "d1_databases": [{"binding": "DB", "database_id": "jobs"}],
  "queues": {"consumers": [{"queue": "jobs", "max_retries": 3, "max_batch_size": 1}]}
}"""


def _scenario(root: Path, bounds: dict):
    (root / "worker.ts").write_text(WORKER)
    (root / "wrangler.jsonc").write_text(CONFIG)
    (root / "schema.sql").write_text("CREATE TABLE jobs (job_id TEXT PRIMARY KEY);\n")
    drive = queue("jobs", [{"body": {"jobId": "j-1", "slow": True}}, {"body": {"jobId": "j-2"}}])
    return define_scenario(
        name="cuts",
        setup=[d1_schema("DB", "./schema.sql")],
        drive=drive,
        invariants=[at_least_once_per_message("every-job", drive, d1_write("DB"), d1_param(0), "jobId")],
        bounds=bounds,
        root=root,
        source=root / "cuts.sim.py",
    )


def _check(scenario, runs):
    with create_platform(scenario) as platform:
        return check_scenario(scenario, platform, seed="cuts", max_runs=runs)


def test_with_no_max_redeliveries_the_fourth_delivery_happens_and_the_check_is_bounded(tmp_path):
    """The consumer's max_retries (3) is the limit: msg-1 succeeds on delivery 4; no cut, nothing undetermined."""
    verdict = _check(_scenario(tmp_path, {"maxFaultsPerRun": 0}), 3)
    assert "bounded" == verdict["kind"], verdict.get("violation")
    provenance = verdict["provenance"]
    assert "maxRedeliveries" not in provenance["bounds"]
    assert ("cuts" not in provenance, "undetermined" not in provenance) == (True, True)
    assert "maxRedeliveries" not in provenance["boundsReached"]


def test_max_redeliveries_two_cuts_the_message_and_the_check_is_bounded_naming_the_cut(tmp_path):
    """maxRedeliveries 2 below max_retries 3: msg-1 is cut after its third delivery in every run,
    with the default faults too; the verdict names the cut (not VIOLATED, not dead-lettered)."""
    verdict = _check(_scenario(tmp_path, {"maxRedeliveries": 2}), 12)
    assert "bounded" == verdict["kind"], verdict.get("violation")
    provenance = verdict["provenance"]
    assert "maxRedeliveries" in provenance["boundsReached"]
    [count] = provenance["cuts"]
    assert ("maxRedeliveries", 2, 3, ["Queue:jobs"], ["msg-1"]) == (
        count["bound"], count["limit"], count["platformLimit"], count["where"], count["left"]
    )
    assert count["runs"] == provenance["runs"] > 1, "every explored run cut msg-1"
    assert 0 == verdict["outcomes"][0].get("deadLettered", 0)
