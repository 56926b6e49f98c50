"""Retry delays in virtual time, on workerd: retry({delaySeconds}), retryAll({delaySeconds}), the
consumer's retry_delay, and a handler that threw, each redelivered as Cloudflare (and Miniflare's
queue broker) delays it: the per-message delay, else the batch's, else the consumer's."""

from itertools import pairwise
from pathlib import Path

import pytest

from eutaxy.cloudflare import create_platform
from eutaxy.engine.check import replay_scenario
from worker_project import jobs_scenario, write_project

WORKER = """
interface Env { DB: D1Database }
type Job = { jobId: string; how: "retry" | "retry-100" | "retryAll-40" | "throw" };

export default {
  async queue(batch: MessageBatch<Job>, env: Env): Promise<void> {
    const first = batch.messages[0];
    // A read first, so every delivery has an effect that shows when it started.
    await env.DB.prepare("SELECT count(*) AS n FROM jobs").first();
    // Each message succeeds on its third delivery; until then it is handed back.
    if (first.attempts >= 3) {
      for (const message of batch.messages) {
        await env.DB.prepare("INSERT INTO jobs (job_id) VALUES (?) ON CONFLICT(job_id) DO NOTHING").bind(message.body.jobId).run();
      }
      return;
    }
    switch (first.body.how) {
      case "retry": first.retry(); break;
      case "retry-100": first.retry({ delaySeconds: 100 }); break;
      case "retryAll-40": batch.retryAll({ delaySeconds: 40 }); break;
      case "throw": throw new Error("not yet");
    }
  },
};
"""

CONFIG = """{
  "name": "delays", "main": "./worker.ts", "compatibility_date": "2026-01-01",
  "d1_databases": [{"binding": "DB", "database_id": "jobs"}],
  "queues": {"consumers": [{"queue": "jobs", "max_retries": 3%(retry_delay)s}]}
}"""


def _scenario(root: Path, how: str, retry_delay: int | None = None):
    config = CONFIG % {"retry_delay": "" if retry_delay is None else f', "retry_delay": {retry_delay}'}
    write_project(root, config, {"worker.ts": WORKER, "schema.sql": "CREATE TABLE jobs (job_id TEXT PRIMARY KEY);\n"})
    return jobs_scenario(root, "delays", {"jobId": "j-1", "how": how})


def _deliveries(scenario):
    """The virtual start time of each delivery of msg-1 (its first effect), and the run's retry decisions."""
    with create_platform(scenario) as platform:
        result = replay_scenario(scenario, platform, {"faults": [], "turns": []}, seed="delays")["result"]
    assert {"kind": "completed"} == result["end"], result["end"]
    starts: dict[str, int] = {}
    for effect in result["effects"]:
        if effect["kind"] != "snapshot":
            starts.setdefault(effect["invocation"], effect["time"])
    retries = [e for e in result["effects"] if e["op"] == "retry" and e["kind"] == "result"]
    return [starts[f"msg-1#{n}"] for n in (1, 2, 3)], retries, result


@pytest.mark.parametrize(
    ("how", "retry_delay", "gap_ms"),
    [
        ("retry-100", None, 100_000),  # retry({delaySeconds: 100})
        ("retry-100", 30, 100_000),  # the message's own delay wins over the consumer's
        ("retryAll-40", 30, 40_000),  # retryAll({delaySeconds: 40}) over the consumer's
        ("retry", 30, 30_000),  # retry() with no delay: the consumer's retry_delay
        ("retry", None, 0),  # neither: at once
    ],
)
def test_a_retried_message_is_delivered_again_after_its_retry_delay_in_virtual_time(toolchain, tmp_path, how, retry_delay, gap_ms):
    starts, retries, _ = _deliveries(_scenario(tmp_path, how, retry_delay))
    # Each redelivery starts at least the delay after the attempt before it (which itself took a few virtual ms).
    assert all(later - earlier >= gap_ms for earlier, later in pairwise(starts)), starts
    assert all(later - earlier < gap_ms + 1_000 for earlier, later in pairwise(starts)), starts
    if how == "retry-100":
        assert [100, 100] == [r["payload"]["args"]["delaySeconds"] for r in retries]
    if how == "retry":
        assert all("delaySeconds" not in r["payload"]["args"] for r in retries)


def test_a_handler_that_threw_is_redelivered_after_the_consumers_retry_delay(toolchain, tmp_path):
    """retry_delay from the config also delays a batch whose handler threw (no retry() call at all)."""
    starts, retries, result = _deliveries(_scenario(tmp_path, "throw", retry_delay=60))
    assert [] == retries
    # Its one read took a virtual millisecond; the delay counts from when it threw.
    assert [60_001, 60_001] == [later - earlier for earlier, later in pairwise(starts)], starts
    # The third delivery, 120 s on, writes the row: the trace carries the redelivery's virtual time.
    (write,) = [e for e in result["effects"] if e["op"] == "run" and e["kind"] == "result"]
    assert write["time"] >= starts[0] + 120_000


def test_a_retry_delay_cloudflare_refuses_is_a_type_error_in_the_worker(toolchain, tmp_path):
    """retry({delaySeconds: -1}) throws in the Worker (no decision point), so the handler failed."""
    scenario = _scenario(tmp_path, "retry-100")
    (tmp_path / "worker.ts").write_text(WORKER.replace("delaySeconds: 100", "delaySeconds: -1"))
    starts, retries, result = _deliveries(scenario)
    assert [] == retries
    # Failed at once, redelivered at once: the consumer sets no retry_delay.
    assert all(later - earlier < 1_000 for earlier, later in pairwise(starts)), starts
    assert {"msg-1#3"} == {e["invocation"] for e in result["effects"] if e["op"] == "run"}
