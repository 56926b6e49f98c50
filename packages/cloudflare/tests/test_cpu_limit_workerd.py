"""A Worker invocation past its CPU limit (the config's limits.cpu_ms) is Cloudflare's error,
recorded as timed out, never a hang: the host's watchdog stops workerd where the invocation
stalled, reruns the plan with it stopped there, and the run goes on (the message is retried)."""

from pathlib import Path

from eutaxy.cloudflare import create_platform
from eutaxy.cloudflare.wrangler import read_config
from eutaxy.engine.check import check_scenario, replay_scenario
from worker_project import jobs_scenario, write_project

WORKER = """
interface Env { DB: D1Database }

export default {
  async queue(batch: MessageBatch<{ jobId: string }>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      await env.DB.prepare("INSERT INTO jobs (job_id, attempt) VALUES (?, ?)").bind(message.body.jobId, message.attempts).run();
      // The first delivery computes for ever: Cloudflare stops it at its CPU limit.
      if (message.attempts === 1) while (true) {}
    }
  },
};
"""

CONFIG = """{
  "name": "cpu", "main": "./worker.ts", "compatibility_date": "2026-01-01",
  "limits": {"cpu_ms": 300},
  "d1_databases": [{"binding": "DB", "database_id": "jobs"}],
  "queues": {"consumers": [{"queue": "jobs", "max_retries": 3}]}
}"""


def _scenario(root: Path):
    schema = "CREATE TABLE jobs (job_id TEXT, attempt INTEGER, PRIMARY KEY (job_id, attempt));\n"
    write_project(root, CONFIG, {"worker.ts": WORKER, "schema.sql": schema})
    return jobs_scenario(root, "cpu", {"jobId": "j-1"})


def test_the_config_gives_the_cpu_limit_else_cloudflares_default(tmp_path):
    _scenario(tmp_path)
    assert (300, 300) == (read_config(tmp_path / "wrangler.jsonc").cpu_ms, read_config(tmp_path / "wrangler.jsonc").cpu_limit_ms)
    (tmp_path / "wrangler.jsonc").write_text(CONFIG.replace('"limits": {"cpu_ms": 300},', ""))
    assert (None, 30_000) == (read_config(tmp_path / "wrangler.jsonc").cpu_ms, read_config(tmp_path / "wrangler.jsonc").cpu_limit_ms)


def test_an_invocation_past_the_cpu_limit_is_timed_out_and_its_message_retried(toolchain, tmp_path):
    """msg-1#1 inserts, then loops: stopped after its insert (timed_out); msg-1#2 inserts and returns."""
    scenario = _scenario(tmp_path)
    with create_platform(scenario) as platform:
        replayed = replay_scenario(scenario, platform, {"faults": [], "turns": []}, seed="cpu")
        result = replayed["result"]
        assert {"kind": "completed"} == result["end"], result["end"]
        assert [("msg-1#1", "timed_out"), ("msg-1#2", "returned")] == [
            (record["invocation"], record["outcome"]) for record in result["invocations"]
        ]
        inserts = [e["invocation"] for e in result["effects"] if e["op"] == "run" and e["kind"] == "result"]
        assert ["msg-1#1", "msg-1#2"] == inserts
        # The same under exploration: a recorded timeout, never cpu_bound.
        verdict = check_scenario(scenario, platform, seed="cpu", max_runs=2, budget_ms=300_000, module_state_runs=0)
    assert "bounded" == verdict["kind"], verdict.get("cause")
    assert any("limits.cpu_ms (300 ms" in sentence for sentence in verdict["provenance"]["assumptions"])
