"""Schedules cross process boundaries as plain data and order themselves for the shrinker."""

from __future__ import annotations

import pytest

from eutaxy.core.errors import UserError
from eutaxy.core.schedule import FaultAt, Schedule, schedule_sort_key, turn_switches


def test_round_trip():
    """A schedule's data reads back as the same schedule."""
    schedule = Schedule(faults=[FaultAt("msg-1#1", 0, "crash_after")], turns=[1, 0])
    data = schedule.to_data()
    assert {"faults": [{"invocation": "msg-1#1", "ordinal": 0, "fault": "crash_after"}], "turns": [1, 0]} == data
    assert schedule == Schedule.from_data(data)
    assert "crash_after" == schedule.fault_at("msg-1#1", 0)
    assert schedule.fault_at("msg-1#1", 1) is None


def test_bad_faults_refused():
    """An unknown fault or a negative ordinal is the user's to fix."""
    with pytest.raises(UserError):
        FaultAt("msg-1#1", 0, "explode")
    with pytest.raises(UserError):
        FaultAt("msg-1#1", -1, "error")


def test_sort_key_prefers_fewer_events_then_faults_then_turns_then_switches_then_lower_picks():
    """Fewer events beat fewer faults; then fewer faults; then fewer turns, switches, lower picks."""
    one_fault = Schedule(faults=[FaultAt("msg-1#1", 0, "error")])
    two_faults = Schedule(faults=[FaultAt("msg-1#1", 0, "error"), FaultAt("msg-2#1", 0, "error")])
    assert schedule_sort_key(1, two_faults, switches=0) < schedule_sort_key(2, one_fault, switches=0)
    assert schedule_sort_key(1, one_fault, switches=0) < schedule_sort_key(1, two_faults, switches=0)
    # A fault weighs more than any number of turn picks.
    assert schedule_sort_key(1, Schedule(turns=[1, 1, 1]), switches=3) < schedule_sort_key(1, one_fault, switches=0)
    assert schedule_sort_key(1, Schedule(turns=[1, 1]), switches=3) < schedule_sort_key(1, Schedule(turns=[0, 0, 0]), switches=0)
    # As many turns: fewer switches first, even with higher picks; then lower picks from the left.
    assert schedule_sort_key(1, Schedule(turns=[0, 1, 1]), switches=2) < schedule_sort_key(1, Schedule(turns=[0, 0, 1]), switches=3)
    assert schedule_sort_key(1, Schedule(turns=[0, 1]), switches=1) < schedule_sort_key(1, Schedule(turns=[1, 0]), switches=1)


def test_turn_switches_counts_changes_of_invocation_and_leaves_snapshots_out():
    """Each change of invocation between two records counts once; snapshots are not in a turn."""
    log = [
        {"invocation": "req-1#1", "kind": "call"},
        {"invocation": "req-1#1", "kind": "result"},
        {"invocation": "req-2#1", "kind": "call"},
        {"invocation": "req-1#1", "kind": "call"},
        {"invocation": "snapshot", "kind": "snapshot"},
        {"invocation": "req-1#1", "kind": "result"},
    ]
    assert 2 == turn_switches(log)
    assert 0 == turn_switches([])
    assert 0 == turn_switches([{"invocation": "snapshot", "kind": "snapshot"}])
