"""Schedules cross process boundaries as plain data and order themselves for the shrinker."""

from __future__ import annotations

import pytest

from eutaxy.core.errors import UserError
from eutaxy.core.schedule import FaultAt, Schedule, schedule_sort_key


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


def test_sort_key_prefers_fewer_events_then_fewer_choices():
    """Fewer events beat fewer faults; then fewer choices; then lower turn picks."""
    one_fault = Schedule(faults=[FaultAt("msg-1#1", 0, "error")])
    two_faults = Schedule(faults=[FaultAt("msg-1#1", 0, "error"), FaultAt("msg-2#1", 0, "error")])
    assert schedule_sort_key(1, two_faults) < schedule_sort_key(2, one_fault)
    assert schedule_sort_key(1, one_fault) < schedule_sort_key(1, two_faults)
    assert schedule_sort_key(1, Schedule(turns=[0, 1])) < schedule_sort_key(1, Schedule(turns=[1, 0]))
