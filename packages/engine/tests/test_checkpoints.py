"""Prefix sharing (engine/checkpoints.py) on the toy platform: fewer steps, the same bytes.

A check on a toy that starts runs from checkpoints and one on a toy that runs every plan
from the reset must send the same plans, receive the same results and give the same
verdict, byte for byte; the sharing toy must take fewer steps of its run loop.
"""

from __future__ import annotations

import pytest

from eutaxy.core.canonical import to_json
from eutaxy.core.protocol import RunPlan
from eutaxy.engine.check import check_scenario
from eutaxy.engine.checkpoints import Checkpoints, SharesPrefixes
from eutaxy.engine.plans import run_streams

from toyplatform import ToyPlatform, count_scenario, orders_scenario

CASES = [
    pytest.param(count_scenario(events=2, effects=2, faults=1, kinds=2, checked=True), True, id="count-2x2-m1-shared"),
    pytest.param(count_scenario(events=3, effects=1, faults=1, targets="independent", checked=True), True, id="count-3x1-m1-independent"),
    pytest.param(count_scenario(events=3, effects=2, targets="independent", checked=True, more=["msg-2"]), True, id="count-3x2-reads-clock"),
    pytest.param(orders_scenario(events=2, max_faults=1, concurrency=2), True, id="orders-concurrent-buggy"),
    pytest.param(orders_scenario(events=2, max_faults=1, concurrency=2, fixed=True), True, id="orders-concurrent-fixed"),
    pytest.param(orders_scenario(events=2, max_faults=2, fixed=True), True, id="orders-sequential-fixed"),
    pytest.param(orders_scenario(events=3, max_faults=2, fixed=True), False, id="orders-seeded-fixed"),
    pytest.param(orders_scenario(events=3, max_faults=2), False, id="orders-seeded-buggy"),
]


def _check(scenario, exhaustive, share):
    platform = ToyPlatform(share=share)
    verdict = check_scenario(scenario, platform, seed="sharing", exhaustive=exhaustive, max_runs=3000)
    return platform, to_json(verdict)


@pytest.mark.parametrize("scenario, exhaustive", CASES)
def test_sharing_prefixes_changes_no_plan_no_result_and_no_verdict(scenario, exhaustive):
    shared, shared_verdict = _check(scenario, exhaustive, share=True)
    fresh, fresh_verdict = _check(scenario, exhaustive, share=False)
    assert fresh_verdict == shared_verdict
    assert fresh.plans == shared.plans
    assert to_json(fresh.results) == to_json(shared.results)
    assert 0 == fresh.checkpoints.resumed
    if exhaustive:
        assert shared.checkpoints.resumed > 0
        assert shared.steps < fresh.steps


def test_an_enumeration_from_checkpoints_skips_the_shared_prefixes():
    """Two events of three effects on one target, one fault: 245 schedules. From the reset each run
    takes every step of its loop; from checkpoints only those past the prefix it shares."""
    scenario = count_scenario(events=2, effects=3, faults=1, checked=True)
    shared, _ = _check(scenario, True, share=True)
    fresh, _ = _check(scenario, True, share=False)
    assert shared.runs == fresh.runs
    assert shared.steps * 2 < fresh.steps


def test_the_toy_shares_prefixes_only_where_its_state_is_its_own():
    """A toy that leaks or is flaky keeps state outside a run, which a checkpoint would hide."""
    assert isinstance(ToyPlatform(), SharesPrefixes)
    for toy in ({"leak": True}, {"flaky": True}):
        platform = ToyPlatform()
        check_scenario(orders_scenario(events=1, max_faults=1, fixed=True, **toy), platform, exhaustive=True, module_state_runs=0)
        assert 0 == platform.checkpoints.taken


def _plan(prefix, *, seed="s", scenario=None):
    return RunPlan(scenario=scenario or {"name": "a"}, seed=seed, streams=run_streams(seed), prefix=tuple(prefix), max_faults=1)


def test_a_plan_resumes_from_the_latest_checkpoint_its_prefix_repeats():
    checkpoints: Checkpoints[str] = Checkpoints()
    assert checkpoints.resume(_plan([])) is None
    for chosen, state in (((), "reset+1"), ((0,), "after 0"), ((0, 0), "after 0 0"), ((0, 0), "after 0 0, a step on")):
        checkpoints.take(chosen, state)
    assert "after 0 0, a step on" == checkpoints.resume(_plan([0, 0, 1]))
    assert "after 0" == checkpoints.resume(_plan([0, 1]))
    # The checkpoints past the one resumed from are forgotten: they were on another path.
    assert "after 0" == checkpoints.resume(_plan([0, 0]))
    assert "reset+1" == checkpoints.resume(_plan([2]))
    assert 4 == checkpoints.resumed


def test_a_plan_with_other_fixed_parts_resumes_from_nothing():
    checkpoints: Checkpoints[str] = Checkpoints()
    assert checkpoints.resume(_plan([])) is None
    checkpoints.take((), "state")
    assert checkpoints.resume(_plan([0], seed="other")) is None
    checkpoints.take((), "state")
    assert checkpoints.resume(_plan([0], seed="other", scenario={"name": "b"})) is None
    checkpoints.take((), "state")
    assert "state" == checkpoints.resume(_plan([1], seed="other", scenario={"name": "b"}))
