"""The scenario layer: names, event ids, bounds and invariants both platforms share."""

from __future__ import annotations

import pytest

from eutaxy.core.errors import UserError
from eutaxy.core.invariants import at_least_once_per_message, at_most_once_per_key

from eutaxy.engine.scenario import (
    default_event_id,
    default_seed,
    drive_events,
    event_at_ms,
    scenario_bounds,
    scenario_invariants,
    scenario_stem,
)

WRITES = {"target": "D1:DB", "op": None, "kind": "result", "where": {"result.changes": {"gt": 0}}}
DRIVE = {"kind": "queue", "name": "payments", "events": [{"id": "msg-1", "body": {"order": {"id": "o-1"}}}]}


def test_the_stem_is_the_file_name_without_its_suffix():
    """One rule for the seed, the regression test's name and a platform's check."""
    assert "queue-duplicate-write" == scenario_stem("/x/queue-duplicate-write.sim.py")
    assert "plain" == scenario_stem("C:\\work\\plain.py")
    assert "other.txt" == scenario_stem("other.txt")
    assert ".sim" == scenario_stem(".sim.py")
    assert "named" == default_seed({"name": "named", "source": ""})
    assert "a" == default_seed({"name": "named", "source": "/s/a.sim.py"})


def test_default_event_ids_by_drive_kind():
    """Messages are msg-N, http requests req-N, cron ticks tick-N, counted from 1; a kind not listed numbers as messages."""
    assert ["msg-1", "msg-2", "req-3", "tick-2", "msg-1"] == [
        default_event_id("queue", 1), default_event_id("sqs", 2), default_event_id("http", 3), default_event_id("cron", 2),
        default_event_id("email", 1),
    ]


def test_drive_events_write_out_ids_and_refuse_repeats():
    """An event without an id gets its default; a repeated or '#' id, or no event, is refused."""
    assert [{"id": "req-1", "path": "/"}, {"id": "b"}] == drive_events({"kind": "http", "events": [{"path": "/"}, {"id": "b"}]})
    with pytest.raises(UserError, match=r"ids repeat: \['m', 'm'\]"):
        drive_events({"kind": "queue", "events": [{"id": "m"}, {"id": "m"}]})
    with pytest.raises(UserError, match="without '#'"):
        drive_events({"kind": "queue", "events": [{"id": "m#1"}]})
    with pytest.raises(UserError, match="no events"):
        drive_events({"kind": "queue", "events": []})


def test_an_events_virtual_time_is_checked_and_written_as_at_ms_only_when_set():
    """at_ms (or atMs, as the data spells it) becomes atMs; an event without one gains no field."""
    events = drive_events({"kind": "queue", "events": [{"id": "a", "at_ms": 3_600_000}, {"id": "b", "atMs": 0}, {"id": "c"}]})
    assert [{"id": "a", "atMs": 3_600_000}, {"id": "b", "atMs": 0}, {"id": "c"}] == events
    assert 5 == event_at_ms({"at_ms": 5}, "x") and event_at_ms({}, "x") is None
    for bad in (-1, 1.5, "5", True, None, 2**53):
        with pytest.raises(UserError, match=r"event 'a': at_ms must be a whole number of virtual milliseconds .* got"):
            drive_events({"kind": "queue", "events": [{"id": "a", "at_ms": bad}]})
    with pytest.raises(UserError, match="both at_ms and atMs"):
        drive_events({"kind": "queue", "events": [{"id": "a", "at_ms": 1, "atMs": 1}]})


def test_bounds_are_camel_case_and_range_checked_without_defaults():
    """snake_case converts; defaults stay out (resolve_bounds applies them)."""
    assert {} == scenario_bounds(None)
    assert {"maxFaultsPerRun": 2, "budgetMs": 0} == scenario_bounds({"max_faults_per_run": 2, "budgetMs": 0})
    with pytest.raises(UserError, match="must be a non-negative integer"):
        scenario_bounds({"maxRedeliveries": -1})


def test_an_unknown_bound_names_the_nearest_one():
    """A misspelt bound beside a good one is refused, naming the field and the nearest valid name."""
    with pytest.raises(UserError) as raised:
        scenario_bounds({"max_faults_per_run": 3, "maxFualtsPerRun": 4})
    assert "unknown bound 'maxFualtsPerRun' in bounds; did you mean 'maxFaultsPerRun'" in str(raised.value)
    assert "maxFualtsPerRun" == raised.value.near
    with pytest.raises(UserError, match="did you mean 'tick'"):
        scenario_bounds({"tock": 1}, names=("tick",))


def test_a_refused_bound_says_why():
    """A bound the platform cannot honour is refused with its reason, never accepted and dropped."""
    with pytest.raises(UserError, match="'alarmsPerObject' is not accepted by this build: no objects"):
        scenario_bounds({"alarmsPerObject": 3}, names=("alarmsPerObject",), refused={"alarmsPerObject": "no objects"})


def test_invariants_are_checked_against_the_scenario():
    """Duplicate names, another drive and a missing body key are refused, each naming its field."""
    once = at_most_once_per_key("once", WRITES, "args.params.0")
    assert [once] == scenario_invariants((once,), DRIVE)
    with pytest.raises(UserError, match=r"invariants\[1\]\.name: two invariants are named 'once'.*'once-2'"):
        scenario_invariants([once, once], DRIVE)
    with pytest.raises(UserError, match="'once-3'"):
        scenario_invariants([once, {**once, "name": "once-2"}, once], DRIVE)
    with pytest.raises(UserError, match=r"invariants\[0\] must be an invariant"):
        scenario_invariants([WRITES], DRIVE)
    with pytest.raises(UserError, match="must be a list"):
        scenario_invariants(once, DRIVE)
    elsewhere = at_least_once_per_message("each", "orders", WRITES, "args.params.0", "order.id")
    with pytest.raises(UserError, match=r"invariants\[0\]\.drive: .*'orders'.*did you mean 'payments'"):
        scenario_invariants([elsewhere], DRIVE)
    lacking = at_least_once_per_message("each", DRIVE, WRITES, "args.params.0", "order.ID")
    with pytest.raises(UserError, match=r"invariants\[0\]\.bodyKey: event 'msg-1'.*did you mean .*'order.id'"):
        scenario_invariants([lacking], DRIVE)
    assert 1 == len(scenario_invariants([at_least_once_per_message("each", DRIVE, WRITES, "args.params.0", "order.id")], DRIVE))
