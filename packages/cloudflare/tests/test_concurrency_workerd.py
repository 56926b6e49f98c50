"""Concurrent invocations through the platform: seeded turn picks, replay, and specs.

The runtime's own tests (runtime/test/turns.test.mjs) pin the scheduler's moves;
these check what the engine sees: a seeded check of two read-modify-write
deliveries on one key finds the lost update with no fault and records the turn
picks in its schedule, replaying that schedule repeats the run, and the same
scenario with one invocation at a time stays BOUNDED.
"""

import pytest
from concurrent_fixture import FIXTURE, concurrent_scenario

from eutaxy.cloudflare import create_platform, define_scenario, queue
from eutaxy.core.errors import UserError
from eutaxy.engine.check import check_scenario, replay_scenario


pytestmark = pytest.mark.usefixtures("toolchain")


def _scenario(concurrency: int, specs=("./domain.ts",)) -> dict:
    return concurrent_scenario("same-key", [{"key": "k", "amount": 600}, {"key": "k", "amount": 400}], concurrency=concurrency, specs=specs)


@pytest.fixture(scope="module")
def concurrent():
    scenario = _scenario(2)
    with create_platform(scenario) as platform:
        yield scenario, platform


def test_a_seeded_check_finds_the_lost_update_and_replays_its_turns(concurrent):
    """No fault: the interleaving alone; the schedule's turn picks make the replay repeat it."""
    scenario, platform = concurrent
    verdict = check_scenario(scenario, platform, seed="same-key", max_runs=60, budget_ms=300_000)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert [] == verdict["schedule"]["faults"]
    assert verdict["schedule"]["turns"]
    assert "lost update" in verdict["violation"]["message"]
    replayed = replay_scenario(scenario, platform, verdict["schedule"], seed="same-key")
    assert verdict["trace"] == replayed["result"]["effects"]
    assert ["total-follows-decision"] == [v["invariant"] for v in replayed["violations"]]


def test_every_turn_is_a_decision_with_the_contract_shape(concurrent):
    """Turn decisions carry options, the index chosen and ``more``."""
    scenario, platform = concurrent
    result = replay_scenario(scenario, platform, {"faults": [], "turns": []}, seed="same-key")["result"]
    turns = [d for d in result["decisions"] if d["kind"] == "turn"]
    assert {"kind": "turn", "options": [{"kind": "start", "event": "msg-1"}], "chosen": 0, "more": False} == turns[0]
    assert all(set(d) == {"kind", "options", "chosen", "more"} for d in turns)


def test_one_invocation_at_a_time_is_bounded_and_makes_no_turns():
    """The same Worker sequentially: nothing interleaves, so nothing is lost."""
    scenario = _scenario(1)
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, seed="same-key", max_runs=10, budget_ms=300_000)
    assert "bounded" == verdict["kind"], verdict.get("violation") or verdict.get("cause")


def test_specs_resolve_against_the_scenario_and_a_missing_one_is_a_user_error(tmp_path):
    """Relative specs become absolute paths; a module that is not there fails before Node starts."""
    scenario = _scenario(2)
    assert [str(FIXTURE / "domain.ts")] == scenario["specs"]
    with pytest.raises(UserError, match="specs"):
        create_platform(_scenario(2, specs=("./missing.ts",)))
    with pytest.raises(UserError, match="specs"):
        define_scenario(name="x", root=tmp_path, drive=queue("jobs", [{"body": {}}]), specs=[3])
