"""What each invariant saw, when that is nothing, and the effects nearest its selector."""

from eutaxy.core import invariants as inv
from eutaxy.core.effects import Effect, snapshot
from eutaxy.core.invariant_counts import (
    InvariantCounts,
    InvariantSight,
    count_invariant,
    effect_point,
    nearest_effects,
    observe_invariant,
    vacuous_reason,
)

from shapes import WRITES, param, table


def write(invocation, order, op="run", changes=1):
    payload = {"args": {"sql": "INSERT", "params": [order]}, "result": {"changes": changes}, "statement": "write"}
    return Effect("D1:DB", op, "result", payload, invocation, 0, 0)


def test_a_delivery_invariant_counts_selected_effects_and_keys():
    """Two writes with keys: two effects, two keys compared."""
    once = inv.at_most_once_per_key("once", WRITES, param(0))
    log = [write("msg-1#1", "o-1"), write("msg-2#1", "o-2"), write("msg-2#1", "o-3", changes=0)]
    counts = count_invariant(once, log, [])
    assert InvariantCounts(effects=2, rows=0, keys=2, runs=1) == counts
    assert vacuous_reason(once, counts) is None


def test_counts_over_runs_are_distinct_values_and_the_runs_that_saw_any():
    """Two orders written in each of three runs are two keys and two effects, seen in three runs;
    a run that selected nothing adds no run."""
    once = inv.at_most_once_per_key("once", WRITES, param(0))
    log = [write("msg-1#1", "o-1"), write("msg-2#1", "o-2")]
    sight = InvariantSight()
    for effects in (log, log, log, [write("msg-1#1", "o-1", changes=0)]):
        sight = sight | observe_invariant(once, effects, [])
    assert InvariantCounts(effects=2, rows=0, keys=2, runs=3) == sight.counts()
    # Within one run too, a key two effects share is one key.
    twice = [write("msg-1#1", "o-1"), write("msg-1#2", "o-1")]
    assert InvariantCounts(effects=2, rows=0, keys=1, runs=1) == count_invariant(once, twice, [])


def test_a_refines_invariant_counts_the_state_keys_its_violation_would_name():
    """refines compares no key path, but its effects' state keys are what it checked (not 0 keys)."""
    follows = inv.refines("follows", "decideRefund", WRITES, state={"read": WRITES, "write": WRITES, "key": "args.params.0"})
    log = [write("req-1#1", "o-1"), write("req-2#1", "o-1")]
    assert InvariantCounts(effects=2, rows=0, keys=1, runs=1) == count_invariant(follows, log, [])


def test_a_selector_that_matched_nothing_is_vacuous_and_names_its_neighbours():
    """A selector for ``run`` over a log of ``all`` writes matched nothing; ``all`` is named as nearest."""
    once = inv.at_most_once_per_key("once", {**WRITES, "op": "run"}, param(0))
    log = [write("msg-1#1", "o-1", op="all")]
    counts = count_invariant(once, log, [])
    assert 0 == counts.effects
    assert "matched no effect" in vacuous_reason(once, counts)
    seen = {effect_point(e) for e in log} | {("D1:OTHER", "run", "result"), ("D1:DB", "run", "call")}
    assert ["D1:DB all result (same target, other op)", "D1:OTHER run result (same op, other target)"] == nearest_effects(
        once["selector"], seen
    )


def test_a_state_invariant_over_an_empty_table_is_vacuous():
    """The table exists (its snapshot is there) but holds no row: nothing was checked."""
    positive = inv.every_row("positive", table("payments"), [{"column": "amount", "op": "gt", "value": 0}])
    empty = [snapshot("D1:DB", "payments", [], 0)]
    assert InvariantCounts() == count_invariant(positive, empty, [])
    assert "read no row" in vacuous_reason(positive, InvariantCounts())
    full = [snapshot("D1:DB", "payments", [{"amount": 3}], 0)]
    assert InvariantCounts(rows=1, runs=1) == count_invariant(positive, full, [])


def test_allow_vacuous_is_written_only_when_asked():
    """The constructors keep their data as before unless ``allow_vacuous=True``."""
    assert "allowVacuous" not in inv.unique("u", table("t"), "k")
    assert inv.unique("u", table("t"), "k", allow_vacuous=True)["allowVacuous"] is True


def sent(invocation, body, time=0):
    return Effect("Queue:out", "send", "result", {"args": {"body": body}}, invocation, 0, time)


SENDS = {"target": "Queue:out", "op": "send", "kind": "result"}


def test_order_and_interval_invariants_count_their_keys():
    """in_order counts effects with a group and an orderable sequence; the intervals those with a key."""
    log = [sent("m-1#1", {"c": "a", "seq": 1}), sent("m-2#1", {"c": "a", "seq": None}), sent("m-3#1", {"seq": 2})]
    ordered = inv.in_order_per_key("fifo", SENDS, "args.body.c", "args.body.seq")
    assert InvariantCounts(effects=3, rows=0, keys=1, runs=1) == count_invariant(ordered, log, [])
    apart = inv.min_interval_per_key("apart", SENDS, "args.body.c", 10)
    # Two effects with a value at the key, the same value ("a"): one key.
    assert InvariantCounts(effects=3, rows=0, keys=1, runs=1) == count_invariant(apart, log, [])
    nothing = [sent("m-1#1", {"seq": None})]
    reason = vacuous_reason(ordered, count_invariant(ordered, nothing, []))
    assert "none with a value at args.body.c and a number or string at args.body.seq" in reason
    assert "none with a value at args.body.c" in vacuous_reason(apart, count_invariant(apart, nothing, []))


def test_an_aggregate_counts_the_rows_it_read():
    """An aggregate's subject is its query's rows: an empty table is vacuous."""
    quota = inv.aggregate("quota", table("documents"), "size", "sum", "lte", 10)
    assert InvariantCounts() == count_invariant(quota, [snapshot("D1:DB", "documents", [], 0)], [])
    assert "read no row" in vacuous_reason(quota, InvariantCounts())
    assert 2 == count_invariant(quota, [snapshot("D1:DB", "documents", [{"size": 1}, {"size": 2}], 0)], []).rows
    by_order = inv.aggregate("lines", table("lines"), "line", "count", "eq", 2, group_by="order_id")
    rows = [{"order_id": "o-1", "line": "a"}, {"order_id": "o-1", "line": "b"}, {"order_id": "o-2", "line": "a"}]
    assert InvariantCounts(rows=3, keys=2, runs=1) == count_invariant(by_order, [snapshot("D1:DB", "lines", rows, 0)], [])
