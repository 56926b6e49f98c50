"""The verdict's faultFree field: the shrunk trace beside the same kept events run without the fault.

Each test checks a toy scenario (see toyplatform.py) whose two runs are known: a crash
after an insert that redelivers the message, a check-then-act race between two
deliveries of one key, and a duplicate that needs neither; ``divergence`` itself is
tested on hand-made logs.
"""

from __future__ import annotations

from eutaxy.core import effect_points as points
from eutaxy.core.canonical import to_json
from eutaxy.core.effects import as_effects
from eutaxy.engine import explain
from eutaxy.engine.check import check_scenario
from eutaxy.engine.explain import DIVERGENCE_POINTS_MAX

from toyplatform import ToyPlatform, orders_scenario


def _same_key_scenario(*, fixed: bool, concurrency: int) -> dict:
    """Two deliveries of order o-1 and no fault allowed."""
    scenario = orders_scenario(events=2, max_faults=0, fixed=fixed, concurrency=concurrency)
    scenario["drive"]["events"][1]["body"]["key"] = "o-1"
    return scenario


def effect_points(records):
    """core's effect points over verdict data, each record back as data."""
    return [[effect.to_data() for effect in point] for point in points.effect_points(as_effects(records))]


def divergence(violating, fault_free):
    """explain.divergence over effect data, its answer as the verdict's data."""
    split = explain.divergence(as_effects(violating), as_effects(fault_free))
    if split is None:
        return None
    return {
        "agreedPoints": split.agreed_points,
        "violating": [effect.to_data() for effect in split.violating],
        "faultFree": [effect.to_data() for effect in split.fault_free],
    }


def _invocations(effects):
    return [point[0]["invocation"] for point in effect_points(effects)]


def test_a_crash_is_compared_with_the_same_events_replayed_without_it():
    """crash_after on the insert: without it the message is acked once; with it, redelivered and inserted again."""
    verdict = check_scenario(orders_scenario(events=3, max_faults=2), ToyPlatform(), max_runs=500)
    assert "violated" == verdict["kind"]
    [kept] = verdict["keptEvents"]
    fault_free = verdict["faultFree"]
    assert "faults" == fault_free["changed"]
    assert {"faults": [], "turns": []} == fault_free["schedule"]
    assert {"kind": "completed"} == fault_free["end"]
    assert [] == fault_free["violations"]
    # The fault-free run is the first delivery alone: get, insert, ack.
    assert [f"{kept}#1"] * 3 == _invocations(fault_free["trace"])
    split = fault_free["divergence"]
    # Both runs read and insert (the crash struck after the insert committed), then part.
    assert 2 == split["agreedPoints"]
    assert [f"{kept}#2"] * 3 == _invocations(split["violating"])
    [ack] = effect_points(split["faultFree"])
    assert ("Queue:toy", "ack", f"{kept}#1") == (ack[0]["target"], ack[0]["op"], ack[0]["invocation"])
    assert [{"target": "Toy:db", "op": "rows"}] == fault_free["stateDiffers"]


def test_a_race_is_compared_with_its_turns_in_arrival_order():
    """Two deliveries of one key in flight: interleaved, both read no row and insert; in arrival order, one does."""
    verdict = check_scenario(_same_key_scenario(fixed=True, concurrency=2), ToyPlatform(), max_runs=500)
    assert "violated" == verdict["kind"]
    assert [] == verdict["schedule"]["faults"]
    fault_free = verdict["faultFree"]
    assert "turns" == fault_free["changed"]
    assert [] == fault_free["violations"]
    assert set(fault_free["schedule"]["turns"]) == {0}
    inserts = [e for e in fault_free["trace"] if e["op"] == "insert" and e["kind"] == "result"]
    assert 1 == len(inserts)
    split = fault_free["divergence"]
    ours, theirs = effect_points(split["violating"]), effect_points(split["faultFree"])
    assert ours and theirs
    assert ours[0] != theirs[0]
    # Both logs agree up to agreedPoints, point for point.
    agreed = split["agreedPoints"]
    assert effect_points(verdict["trace"])[agreed] == ours[0]
    assert effect_points(fault_free["trace"])[agreed] == theirs[0]


def test_a_bug_that_needs_no_fault_and_no_turn_has_nothing_to_compare():
    """Two deliveries of one key one after the other, no guard: the plain run is the counterexample."""
    verdict = check_scenario(_same_key_scenario(fixed=False, concurrency=1), ToyPlatform(), max_runs=50)
    assert "violated" == verdict["kind"]
    fault_free = verdict["faultFree"]
    assert "nothing" == fault_free["changed"]
    assert fault_free["divergence"] is None
    assert [] == fault_free["stateDiffers"]
    assert [verdict["violation"]["invariant"]] == [v["invariant"] for v in fault_free["violations"]]
    assert verdict["trace"] == fault_free["trace"]


def test_the_fault_free_run_is_deterministic():
    """The same scenario and seed give the same faultFree bytes."""
    first = check_scenario(orders_scenario(events=3, max_faults=2), ToyPlatform(), max_runs=200)
    second = check_scenario(orders_scenario(events=3, max_faults=2), ToyPlatform(), max_runs=200)
    assert to_json(first["faultFree"]) == to_json(second["faultFree"])


def _point(invocation, ordinal, op, time, fault=None, result=None):
    records = [
        {"target": "T", "op": op, "kind": "call", "invocation": invocation, "ordinal": ordinal, "payload": {}, "time": time},
        {"target": "T", "op": op, "kind": "result", "invocation": invocation, "ordinal": ordinal,
         "payload": {"result": result}, "time": time},
    ]
    if fault:
        records.append({"target": "T", "op": op, "kind": "fault", "invocation": invocation, "ordinal": ordinal,
                        "payload": {"fault": fault}, "time": time})
    return records


def test_identical_logs_have_no_divergence_and_time_is_not_compared():
    """The same points at other virtual times are the same log."""
    log = _point("e#1", 0, "put", 1) + _point("e#1", 1, "ack", 2)
    later = _point("e#1", 0, "put", 10) + _point("e#1", 1, "ack", 20)
    assert divergence(log, later) is None


def test_a_fault_on_a_point_is_not_itself_the_difference():
    """crash_after leaves its point as it was; the first difference is what the crash caused."""
    violating = _point("e#1", 0, "put", 1, fault="crash_after") + _point("e#2", 0, "put", 2)
    fault_free = _point("e#1", 0, "put", 1) + _point("e#1", 1, "ack", 2)
    split = divergence(violating, fault_free)
    assert 1 == split["agreedPoints"]
    assert _point("e#2", 0, "put", 2) == split["violating"]
    assert _point("e#1", 1, "ack", 2) == split["faultFree"]


def test_a_different_result_is_a_difference_and_a_run_that_ended_has_an_empty_side():
    """A point whose result differs parts the logs; a shorter log's side is empty past its end."""
    split = divergence(_point("e#1", 0, "get", 1, result=1), _point("e#1", 0, "get", 1, result=2))
    assert 0 == split["agreedPoints"]
    split = divergence(_point("e#1", 0, "get", 1) + _point("e#1", 1, "put", 2), _point("e#1", 0, "get", 1))
    assert (1, []) == (split["agreedPoints"], split["faultFree"])


def test_each_side_keeps_at_most_the_window_of_points():
    """A long tail after the split is cut to DIVERGENCE_POINTS_MAX points per side."""
    violating = [r for i in range(20) for r in _point("a#1", i, "put", i)]
    fault_free = [r for i in range(20) for r in _point("b#1", i, "put", i)]
    split = divergence(violating, fault_free)
    assert DIVERGENCE_POINTS_MAX == len(effect_points(split["violating"])) == len(effect_points(split["faultFree"]))
