"""The platform end to end: the real host, Miniflare and workerd on the planted bug.

These tests start the pinned Node toolchain and skip (saying why) only when it
is not installed. One host per module keeps them fast: the Worker is loaded
once and every test's runs reuse it, as a check does.
"""

from pathlib import Path

import pytest

from eutaxy.cloudflare import create_platform, expect_holds, load_scenario
from eutaxy.cloudflare import host as host_module
from eutaxy.cloudflare.platform import _run_timeout_s
from eutaxy.core.errors import UserError
from eutaxy.engine.check import replay_scenario

CORPUS = Path(__file__).resolve().parents[3] / "corpus" / "planted-bugs" / "queue-duplicate-write"
BUGGY = CORPUS / "queue-duplicate-write.sim.py"
FIXED = CORPUS / "fixed" / "queue-duplicate-write-fixed.sim.py"
SEED = "queue-duplicate-write"
CRASH_AFTER_FIRST_INSERT = {"faults": [{"invocation": "msg-1#1", "ordinal": 0, "fault": "crash_after"}], "turns": []}
NO_FAULTS = {"faults": [], "turns": []}


pytestmark = pytest.mark.usefixtures("toolchain")


@pytest.fixture(scope="module")
def buggy():
    scenario = load_scenario(BUGGY)
    with create_platform(scenario) as platform:
        yield scenario, platform


def d1_results(result):
    return [effect for effect in result["effects"] if effect["target"] == "D1:DB" and effect["kind"] == "result"]


def test_a_fault_free_run_records_each_payment_once(buggy):
    """Without faults each message inserts one row and is acked; the snapshot has both rows."""
    scenario, platform = buggy
    outcome = replay_scenario(scenario, platform, NO_FAULTS, seed=SEED)
    result = outcome["result"]
    assert {"kind": "completed"} == result["end"]
    assert [] == outcome["violations"]
    assert [["o-1", 1200], ["o-2", 500]] == [effect["payload"]["args"]["params"] for effect in d1_results(result)]
    assert ["msg-1#1", "msg-2#1"] == [effect["invocation"] for effect in d1_results(result)]
    assert all(1 == effect["payload"]["result"]["changes"] for effect in d1_results(result))
    snapshots = [effect for effect in result["effects"] if effect["kind"] == "snapshot"]
    assert ["payments"] == [snapshot["op"] for snapshot in snapshots if snapshot["target"] == "D1:DB"]
    assert 2 == len(snapshots[0]["payload"]["rows"])


def test_runs_are_reset_and_repeatable(buggy):
    """The same plan twice gives the same effect log: D1 is reset between runs."""
    scenario, platform = buggy
    first = replay_scenario(scenario, platform, CRASH_AFTER_FIRST_INSERT, seed=SEED)["result"]
    second = replay_scenario(scenario, platform, CRASH_AFTER_FIRST_INSERT, seed=SEED)["result"]
    assert first == second


def test_a_crash_after_the_insert_duplicates_the_payment(buggy):
    """crash_after on msg-1's insert redelivers it and the second delivery inserts again."""
    scenario, platform = buggy
    outcome = replay_scenario(scenario, platform, CRASH_AFTER_FIRST_INSERT, seed=SEED, events=["msg-1"])
    inserts = d1_results(outcome["result"])
    assert ["msg-1#1", "msg-1#2"] == [effect["invocation"] for effect in inserts]
    assert ["payment-recorded-once"] == [violation["invariant"] for violation in outcome["violations"]]


def test_expect_holds_fails_on_the_bug_and_passes_on_the_fix():
    """The regression test's call fails while the bug exists and passes on the fixed twin."""
    with pytest.raises(AssertionError, match="payment-recorded-once"):
        expect_holds(BUGGY, schedule=CRASH_AFTER_FIRST_INSERT, events=["msg-1"], seed=SEED)
    expect_holds(FIXED, schedule=CRASH_AFTER_FIRST_INSERT, events=["msg-1"], seed=SEED)


def test_a_d1_binding_without_setup_makes_the_run_unsupported(tmp_path):
    """A run touching a D1 binding no setup resets is UNSUPPORTED, never a pass.

    The binding is the runtime's trap (D1's record says ``without_setup = "unsupported"``);
    the scenario's invariants, which select D1:DB and would be refused at load for it, are
    left out so the run reaches the Worker.
    """
    for name in ("worker.ts", "wrangler.jsonc"):
        (tmp_path / name).write_text((CORPUS / name).read_text())
    (tmp_path / "s.sim.py").write_text(
        BUGGY.read_text().replace('setup=[d1_schema("DB", "./schema.sql")]', "setup=[]")
    )
    scenario = {**load_scenario(tmp_path / "s.sim.py"), "invariants": []}
    assert [] == scenario["setup"]
    with create_platform(scenario) as platform:
        outcome = replay_scenario(scenario, platform, NO_FAULTS, seed=SEED)
    end = outcome["result"]["end"]
    assert ("unsupported", "binding_without_setup") == (end["kind"], end["cause"])
    assert 'D1 binding DB was touched (.prepare) but no setup step resets it; add d1_schema("DB", "./schema.sql")' in end["detail"]


def test_a_worker_that_does_not_bundle_is_a_user_error(tmp_path):
    """A syntax error in the Worker is the user's to fix, reported with its line when the platform is created."""
    for name in ("schema.sql", "wrangler.jsonc", "queue-duplicate-write.sim.py"):
        (tmp_path / name).write_text((CORPUS / name).read_text())
    (tmp_path / "worker.ts").write_text("export default {\n  async queue(batch, env) {\n    await (\n  },\n};\n")
    scenario = load_scenario(tmp_path / "queue-duplicate-write.sim.py")
    with pytest.raises(UserError, match=r"did not load(.|\n)*worker\.ts:4:"):
        create_platform(scenario)


def test_an_ai_binding_from_the_config_is_refused_when_touched(tmp_path):
    """The config's AI binding reaches the runtime as a trap: touching it is UNSUPPORTED (binding_not_allowed).

    (KV was refused the same way until it was modelled: test_kv_workerd.py.)
    """
    (tmp_path / "schema.sql").write_text((CORPUS / "schema.sql").read_text())
    (tmp_path / "queue-duplicate-write.sim.py").write_text(BUGGY.read_text())
    (tmp_path / "wrangler.jsonc").write_text(
        (CORPUS / "wrangler.jsonc").read_text().replace('"queues"', '"ai": { "binding": "AI" },\n  "queues"')
    )
    (tmp_path / "worker.ts").write_text(
        (CORPUS / "worker.ts").read_text().replace(
            "const { orderId, amountCents } = message.body;",
            "const { orderId, amountCents } = message.body;\n      await (env as any).AI.run(orderId, {});",
        )
    )
    scenario = load_scenario(tmp_path / "queue-duplicate-write.sim.py")
    with create_platform(scenario) as platform:
        outcome = replay_scenario(scenario, platform, NO_FAULTS, seed=SEED)
    end = outcome["result"]["end"]
    assert ("unsupported", "binding_not_allowed") == (end["kind"], end["cause"])
    assert "AI binding AI was touched" in end["detail"]


@pytest.mark.parametrize(
    ("bounds", "timeout_s"),
    [
        # Four times the plan's effect hang bound, whatever the exploration budget beside it.
        ({"budgetMs": 600_000, "effectHangMs": 20_000}, 80.0),
        ({"budgetMs": 1_000, "effectHangMs": 30_000}, 120.0),
        # Never under the host's floor.
        ({"budgetMs": 600_000, "effectHangMs": 1_000}, 60.0),
    ],
)
def test_python_waits_for_a_run_by_the_plans_effect_hang_bound(bounds, timeout_s):
    assert host_module.RUN_TIMEOUT_FLOOR_S == 60.0
    assert timeout_s == _run_timeout_s({"bounds": bounds})
