"""Every violation is replayed before it is reported; one that does not replay is never shown."""

from eutaxy.core.protocol import RunResult
from eutaxy.engine.check import check_scenario, replay_scenario

from toyplatform import ToyPlatform, orders_scenario


class FlakyDuplicates(ToyPlatform):
    """The toy, except that a replay (a plan with the replay policy) never writes twice.

    It stands for a platform whose runs depend on something outside the plan: the
    violation exploration saw cannot be reproduced.
    """

    def run(self, plan):
        if plan.policy.kind == "replay":
            scenario = dict(plan.scenario, toy={**plan.scenario["toy"], "fixed": True})
            plan = type(plan)(
                scenario=scenario, seed=plan.seed, streams=plan.streams, prefix=plan.prefix,
                policy=plan.policy, max_faults=plan.max_faults,
            )
        return super().run(plan)


def test_a_violation_that_does_not_replay_is_never_reported():
    """Exploration sees duplicates, replay never does: BOUNDED, with every miss counted."""
    verdict = check_scenario(orders_scenario(), FlakyDuplicates(), max_runs=60, module_state_runs=0)
    assert "bounded" == verdict["kind"]
    assert "violation" not in verdict
    assert verdict["provenance"]["notReplayed"] > 0
    assert 0 == verdict["provenance"]["replayed"]


def test_a_reported_violation_was_replayed():
    """The verdict's replay count and its violation come from the replay."""
    platform = ToyPlatform()
    verdict = check_scenario(orders_scenario(), platform, max_runs=60)
    assert "violated" == verdict["kind"]
    assert 1 == verdict["provenance"]["replayed"]
    assert 0 == verdict["provenance"]["notReplayed"]
    kinds = [plan["policy"]["kind"] for plan in platform.plans]
    first_replay = kinds.index("replay")
    assert verdict["provenance"]["runs"] == first_replay  # the replay follows the violating run at once


def test_replay_scenario_returns_the_result_and_the_violations():
    """replay_scenario takes the verdict's schedule as plain data and reports what the replay broke."""
    scenario = orders_scenario(events=2)
    schedule = {"faults": [{"invocation": "msg-2#1", "ordinal": 1, "fault": "crash_after"}], "turns": []}
    replayed = replay_scenario(scenario, ToyPlatform(), schedule, seed="s")
    result = RunResult.from_data(replayed["result"])
    assert "completed" == result.end.kind
    assert ['"o-2"'] == replayed["violations"][0]["keys"]
    only_first = replay_scenario(scenario, ToyPlatform(), schedule, seed="s", events=["msg-1"])
    assert [] == only_first["violations"]
    assert {"msg-1#1"} == {e["invocation"] for e in only_first["result"]["effects"] if e["kind"] != "snapshot"}


def test_replay_follows_recorded_turn_picks():
    """In a concurrent run the schedule's turn picks decide the order, not the seed."""
    scenario = orders_scenario(events=2, concurrency=2, fixed=True)
    a = replay_scenario(scenario, ToyPlatform(), {"faults": [], "turns": [0, 1, 1]}, seed="x")
    b = replay_scenario(scenario, ToyPlatform(), {"faults": [], "turns": [0, 0, 0]}, seed="x")
    order = lambda r: [e["invocation"] for e in r["result"]["effects"] if e["kind"] == "call"]
    assert order(a) != order(b)
    # Once the recorded picks run out the turn stream decides; with every pick recorded
    # another seed's stream is never asked.
    every_pick = [d["chosen"] for d in a["result"]["decisions"] if d["kind"] == "turn"]
    assert len(every_pick) > 3
    again = replay_scenario(scenario, ToyPlatform(), {"faults": [], "turns": every_pick}, seed="y")
    assert a == again
