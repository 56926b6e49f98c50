"""The exploration loop (engine/explore.py) and the replay strategy behind its interface.

Each test drives the loop with a strategy on the toy platform and asserts the outcome
exactly: what the loop does between runs (bounds, UNSUPPORTED runs, confirming a
violation) is the same for every strategy, and a strategy decides only what to run.
"""

from __future__ import annotations

import attrs
import pytest

from eutaxy.core.protocol import RunPlan
from eutaxy.core.schedule import FaultAt, Schedule
from eutaxy.engine import explore as explore_module
from eutaxy.engine.bounds import resolve_bounds
from eutaxy.engine.explore import explore
from eutaxy.engine.outcomes import Exhausted, Found, Stopped
from eutaxy.engine.plans import first_plan
from eutaxy.engine.replay import ReplayStrategy
from eutaxy.engine.session import RunRecord, Session

from toyplatform import ToyPlatform, orders_scenario


def _session(scenario, *, max_runs=None):
    return Session(
        platform=ToyPlatform(),
        scenario=scenario,
        seed="explore",
        bounds=resolve_bounds(scenario, max_runs=max_runs),
        clock_ms=lambda: 0,
        keep_first=0,
    )


@attrs.define(eq=False)
class _FirstRuns:
    """A strategy that runs the fault-free plan ``count`` times and records what it is asked."""

    session: Session
    count: int
    covers: bool = False
    stop_after: int | None = None
    calls: list[str] = attrs.field(factory=list)

    def finished(self) -> bool:
        self.calls.append("finished")
        return self.calls.count("next_plan") >= self.count

    def next_plan(self) -> RunPlan:
        self.calls.append("next_plan")
        return first_plan(dict(self.session.scenario), self.session.seed, [], 0, max_short_batches=0)

    def observe(self, record: RunRecord) -> Stopped | None:
        self.calls.append("observe")
        if self.stop_after is not None and self.calls.count("observe") == self.stop_after:
            return Stopped(cause="not_replayable", detail="the strategy stopped")
        return None

    def report(self) -> dict | None:
        return {"asked": len(self.calls)}


def test_the_loop_asks_finished_then_runs_next_plan_then_observes_until_finished():
    """Three runs, each preceded by finished() and followed by observe(); the fourth finished() ends it."""
    session = _session(orders_scenario(events=1))
    strategy = _FirstRuns(session=session, count=3)
    outcome = explore(session, strategy)
    assert ["finished", "next_plan", "observe"] * 3 + ["finished"] == strategy.calls
    assert Exhausted(bounds_reached=(), exhaustive={"asked": 10}, completed=False) == outcome
    assert 3 == session.runs


def test_finishing_says_completed_only_for_a_strategy_that_covers_the_space():
    """Exhausted.completed is the strategy's ``covers``: the loop claims nothing of its own."""
    session = _session(orders_scenario(events=1))
    outcome = explore(session, _FirstRuns(session=session, count=1, covers=True))
    assert isinstance(outcome, Exhausted) and outcome.completed


def test_the_session_bounds_stop_the_loop_between_runs():
    """maxRuns 2 stops a strategy that would make five runs, before the third."""
    session = _session(orders_scenario(events=1), max_runs=2)
    strategy = _FirstRuns(session=session, count=5)
    outcome = explore(session, strategy)
    assert Exhausted(bounds_reached=("maxRuns",), exhaustive={"asked": 7}) == outcome
    assert 2 == session.runs


def test_a_strategy_that_stops_in_observe_ends_exploration_with_its_outcome():
    session = _session(orders_scenario(events=1))
    outcome = explore(session, _FirstRuns(session=session, count=5, stop_after=2))
    assert Stopped(cause="not_replayable", detail="the strategy stopped") == outcome
    assert 2 == session.runs


def test_a_loop_no_bound_stops_is_an_internal_error(monkeypatch):
    """The loop's own bound: past RUNS_MAX runs it fails loudly instead of running on."""
    monkeypatch.setattr(explore_module, "RUNS_MAX", 3)
    session = _session(orders_scenario(events=1))
    with pytest.raises(AssertionError, match="exploration made 4 runs and no bound stopped it"):
        explore(session, _FirstRuns(session=session, count=100))
    assert 4 == session.runs


def test_replaying_a_violating_schedule_finds_it_confirmed_in_one_run():
    """The replay strategy runs the schedule; the loop confirms the violation by a second replay."""
    scenario = orders_scenario(events=2)
    crash = Schedule(faults=(FaultAt(invocation="msg-2#1", ordinal=1, fault="crash_after"),), turns=())
    session = _session(scenario)
    outcome = explore(session, ReplayStrategy(session=session, schedules=[crash]))
    assert isinstance(outcome, Found)
    assert "one insert per order" == outcome.violation.invariant
    assert ('"o-2"',) == tuple(outcome.violation.keys)
    assert crash == outcome.record.schedule
    assert (1, 1, 0) == (session.runs, session.replayed, session.not_replayed)


def test_replaying_schedules_that_hold_is_bounded_but_never_completed():
    """Two schedules without a violation: BOUNDED after both, covering only them."""
    scenario = orders_scenario(events=2)
    schedules = [Schedule(faults=(), turns=()), Schedule(faults=(FaultAt(invocation="msg-1#1", ordinal=0, fault="crash_before"),), turns=())]
    session = _session(scenario)
    outcome = explore(session, ReplayStrategy(session=session, schedules=schedules))
    assert Exhausted(bounds_reached=(), completed=False) == outcome
    assert 2 == session.runs


def test_replaying_on_the_kept_events_restricts_the_scenario():
    """With kept_events, the replayed runs deliver only those events."""
    scenario = orders_scenario(events=2)
    session = _session(scenario)
    strategy = ReplayStrategy(session=session, schedules=[Schedule(faults=(), turns=())], kept_events=["msg-1"])
    explore(session, strategy)
    plans = session.platform.plans
    assert [["msg-1"]] == [[event["id"] for event in plan["scenario"]["drive"]["events"]] for plan in plans]
