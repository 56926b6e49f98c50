"""``--exhaustive`` on workerd: the engine's enumerator over a concurrent run's turns.

Two messages whose deliveries each read and write their own D1 database (targets
D1:A and D1:B) interleave in (k(n+1))! / ((n+1)!^k k!) = 10 ways (k=2 events of n=2
effects, each starting with a turn, in order). Their effect turns commute, so with
the partial-order reduction on fewer schedules run. A turn that does more than its effect
(reads the clock) commutes with no turn, and the reduction stays on. The counts are
asserted both ways; the verdict's ``exhaustive`` object is what the text and JSON reports print.
"""

import pytest
from concurrent_fixture import concurrent_scenario

from eutaxy.cloudflare import create_platform
from eutaxy.engine.bounds import resolve_bounds, with_bounds
from eutaxy.engine.check import check_scenario
from eutaxy.engine.exhaustive import explore_exhaustive
from eutaxy.engine.session import Session


#: Every order of two 3-turn deliveries (start, read, write), msg-1 starting first.
ALL_ORDERS = 10

#: The orders the reduction runs when msg-1's read turn also reads the clock: msg-2 starts after
#: msg-1's write (1), between its read and write (1, msg-1's write commuting with msg-2's
#: turns), or before its read, which then comes before, between or after msg-2's two turns (3).
CLOCK_ORDERS = 5


pytestmark = pytest.mark.usefixtures("toolchain")


def _scenario(bodies):
    return concurrent_scenario("two-targets", bodies, concurrency=2, worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"})


DIFFERENT_TARGETS = [{"key": "k", "amount": 1, "db": "A"}, {"key": "k", "amount": 2, "db": "B"}]


@pytest.fixture(scope="module")
def two_targets():
    scenario = _scenario(DIFFERENT_TARGETS)
    with create_platform(scenario) as platform:
        yield scenario, platform


def _enumerate(scenario, platform, *, reduction):
    bounds = resolve_bounds(scenario, max_runs=200, budget_ms=300_000)
    session = Session(
        platform=platform,
        # As check_scenario hands it on: plans carry the resolved bounds and effectHangMs.
        scenario=with_bounds(scenario, bounds),
        seed="two-targets",
        bounds=bounds,
        clock_ms=lambda: 0,
        keep_first=0,
    )
    return explore_exhaustive(session, reduction=reduction).exhaustive


def test_without_the_reduction_every_order_runs(two_targets):
    """The enumerator's count on workerd matches the closed form."""
    scenario, platform = two_targets
    assert {"completed": True, "schedules": ALL_ORDERS, "reduction": False} == _enumerate(scenario, platform, reduction=False)


def test_the_reduction_stays_on_and_runs_fewer_schedules(two_targets):
    """Turns of different invocations on different targets commute: the orders of the
    start of msg-2 against msg-1's turns are what is left (before msg-1's read, between
    its read and write, after its write)."""
    scenario, platform = two_targets
    verdict = check_scenario(scenario, platform, seed="two-targets", exhaustive=True, max_runs=200, budget_ms=300_000)
    assert "bounded" == verdict["kind"], verdict.get("violation") or verdict.get("cause")
    assert {"completed": True, "schedules": 3, "reduction": True} == verdict["exhaustive"]
    assert 3 < ALL_ORDERS


def test_a_turn_that_reads_the_clock_depends_on_every_turn_and_the_reduction_stays_on():
    """msg-1 reads the clock in the turn of its read: that turn commutes with none, its write
    still commutes with msg-2's turns, so more orders run than with no clock read, fewer than all."""
    scenario = _scenario([{**DIFFERENT_TARGETS[0], "clock": True}, DIFFERENT_TARGETS[1]])
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, seed="two-targets", exhaustive=True, max_runs=200, budget_ms=300_000)
    assert "bounded" == verdict["kind"], verdict.get("violation") or verdict.get("cause")
    assert {"completed": True, "schedules": CLOCK_ORDERS, "reduction": True} == verdict["exhaustive"]
    assert 3 < CLOCK_ORDERS < ALL_ORDERS


def test_one_target_finds_the_lost_update_exhaustively():
    """Both deliveries on D1:A: their turns do not commute and the enumeration reaches the lost update."""
    scenario = _scenario([{"key": "k", "amount": 1}, {"key": "k", "amount": 2}])
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, seed="two-targets", exhaustive=True, max_runs=200, budget_ms=300_000)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "total-follows-decision" == verdict["violation"]["invariant"]
    assert verdict["exhaustive"]["reduction"] and not verdict["exhaustive"]["completed"]
    assert verdict["schedule"]["turns"]
