"""The shrinker: smallest change first, only candidates that break the same invariant for the same keys."""

import itertools

from hypothesis import HealthCheck, assume, given, settings, strategies as st

from eutaxy.core.schedule import FaultAt, Schedule, schedule_sort_key, turn_switches
from eutaxy.engine.bounds import resolve_bounds
from eutaxy.engine.check import check_scenario, replay_scenario
from eutaxy.engine.replay import replay
from eutaxy.engine.session import Session
from eutaxy.engine.shrink import shrink

from toyplatform import ToyPlatform, orders_scenario


def _session(scenario, platform=None):
    return Session(
        platform=platform or ToyPlatform(),
        scenario=scenario,
        seed="shrink",
        bounds=resolve_bounds(scenario),
        clock_ms=lambda: 0,
        keep_first=0,
    )


def test_seeded_exploration_finds_replays_and_shrinks_the_duplicate_write_to_one_fault():
    """Three messages, up to two faults: the verdict keeps one message and one fault on its insert."""
    verdict = check_scenario(orders_scenario(events=3, max_faults=2), ToyPlatform(), max_runs=500)
    assert "violated" == verdict["kind"]
    assert 1 == verdict["provenance"]["replayed"]
    [kept] = verdict["keptEvents"]
    [fault] = verdict["schedule"]["faults"]
    assert f"{kept}#1" == fault["invocation"]
    assert 1 == fault["ordinal"]
    assert fault["fault"] in ("crash_after", "ambiguous")
    assert "at_most_once_per_key" == verdict["violation"]["invariantKind"]
    # The trace is the replayed shrunk run: both inserts of the kept message are in it.
    inserts = [e for e in verdict["trace"] if e["op"] == "insert" and e["kind"] == "result"]
    assert [f"{kept}#1", f"{kept}#2"] == [e["invocation"] for e in inserts]
    assert {e["invocation"].split("#")[0] for e in verdict["trace"] if e["kind"] != "snapshot"} == {kept}


def test_the_shrunk_schedule_replays_the_reported_trace():
    """replay_scenario on the kept events and the schedule gives the trace and the violation back."""
    scenario = orders_scenario(events=3, max_faults=2)
    verdict = check_scenario(scenario, ToyPlatform(), max_runs=500)
    again = replay_scenario(
        scenario, ToyPlatform(), verdict["schedule"], seed=verdict["provenance"]["seed"], events=verdict["keptEvents"]
    )
    assert verdict["trace"] == again["result"]["effects"]
    assert [verdict["violation"]] == again["violations"]


def test_removing_one_fault_comes_before_removing_an_event():
    """Two crashes after o-1's inserts write it three times; one is enough, and msg-2 is not needed.

    The first candidate tried keeps both events and drops one fault; the result keeps one
    fault and one event.
    """
    scenario = orders_scenario(events=2, max_faults=2)
    platform = ToyPlatform()
    session = _session(scenario, platform)
    start = Schedule(
        faults=(
            FaultAt(invocation="msg-1#1", ordinal=1, fault="crash_after"),
            FaultAt(invocation="msg-1#2", ordinal=1, fault="crash_after"),
        )
    )
    record = replay(session, start)
    assert ['"o-1"'] == record.violations[0].keys
    before = len(platform.plans)
    shrunk = shrink(session, record, record.violations[0])
    first_candidate = platform.plans[before]
    assert 2 == len(first_candidate["scenario"]["drive"]["events"])
    assert 1 == len(first_candidate["policy"]["faults"])
    assert (FaultAt(invocation="msg-1#1", ordinal=1, fault="crash_after"),) == shrunk.schedule.faults
    assert ("msg-1",) == shrunk.kept_events
    assert record.violations[0].keys == shrunk.violation.keys


def test_a_candidate_that_breaks_another_key_is_not_kept():
    """Two duplicates (o-1 and o-2): the target is both keys, so neither fault can go."""
    scenario = orders_scenario(events=2, max_faults=2)
    session = _session(scenario)
    start = Schedule(
        faults=(
            FaultAt(invocation="msg-1#1", ordinal=1, fault="crash_after"),
            FaultAt(invocation="msg-2#1", ordinal=1, fault="ambiguous"),
        )
    )
    record = replay(session, start)
    violation = record.violations[0]
    assert ['"o-1"', '"o-2"'] == violation.keys
    shrunk = shrink(session, record, violation)
    assert start.faults == shrunk.schedule.faults
    assert ("msg-1", "msg-2") == shrunk.kept_events


FAULTS = st.sampled_from(["crash_before", "crash_after", "ambiguous", "error"])


@st.composite
def violating_schedules(draw):
    events = draw(st.integers(min_value=1, max_value=3))
    faults = {}
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        event = draw(st.integers(min_value=1, max_value=events))
        attempt = draw(st.integers(min_value=1, max_value=2))
        ordinal = draw(st.integers(min_value=0, max_value=1))
        fault = draw(FAULTS)
        if ordinal == 0 and fault == "ambiguous":
            fault = "error"  # reads allow no ambiguous outcome
        faults[(f"msg-{event}#{attempt}", ordinal)] = fault
    return events, Schedule(faults=tuple(FaultAt(invocation=i, ordinal=o, fault=f) for (i, o), f in sorted(faults.items())))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(violating_schedules())
def test_shrinking_keeps_the_violation_and_never_grows(case):
    """Whatever violating schedule it starts from, the output still violates and is no longer."""
    events, schedule = case
    scenario = orders_scenario(events=events, max_faults=4)
    session = _session(scenario)
    record = replay(session, schedule)
    assume(record.violations)
    injected = record.schedule
    shrunk = shrink(session, record, record.violations[0])
    again = replay(session, shrunk.schedule, shrunk.kept_events)
    assert [(v.invariant, v.keys) for v in again.violations][:1] == [(shrunk.violation.invariant, shrunk.violation.keys)]
    assert shrunk.violation.keys == record.violations[0].keys
    assert len(shrunk.schedule.faults) <= len(injected.faults)
    assert len(shrunk.kept_events) <= events
    assert again.result.effects == shrunk.record.result.effects
    start = schedule_sort_key(events, injected, switches=turn_switches(record.result.effects))
    assert schedule_sort_key(len(shrunk.kept_events), shrunk.schedule, switches=turn_switches(again.result.effects)) <= start


def _lost_order_scenario(redeliveries):
    """Two orders and a fixed expected list: a crash before msg-2's insert, with no redelivery, loses o-2."""
    scenario = orders_scenario(events=2, max_faults=1)
    scenario["bounds"]["maxRedeliveries"] = redeliveries
    scenario["invariants"] = [
        {
            "kind": "at_least_once",
            "name": "both orders inserted",
            "selector": {"target": "Toy:db", "op": "insert", "kind": "result"},
            "key": "args.key",
            "expected": ["o-1", "o-2"],
        }
    ]
    return scenario


LOSE_O2 = Schedule(faults=(FaultAt(invocation="msg-2#1", ordinal=1, fault="crash_before"),))


def test_an_event_a_fixed_expectation_names_is_never_removed():
    """Removing msg-2 would keep o-2 missing without any fault; the shrinker keeps it and its fault."""
    session = _session(_lost_order_scenario(redeliveries=0))
    record = replay(session, LOSE_O2)
    assert ['"o-2"'] == record.violations[0].keys
    shrunk = shrink(session, record, record.violations[0])
    assert ("msg-1", "msg-2") == shrunk.kept_events
    assert LOSE_O2.faults == shrunk.schedule.faults
    # The regression test's replay passes once the consumer is fixed (here: redelivery recovers o-2).
    fixed = _lost_order_scenario(redeliveries=2)
    again = replay_scenario(fixed, ToyPlatform(), shrunk.schedule.to_data(), seed="shrink", events=list(shrunk.kept_events))
    assert [] == again["violations"]


def test_a_candidate_whose_fault_free_run_breaks_is_refused_even_unprotected():
    """Without the protection, the fault-free guard still refuses to drop msg-2 (o-2 missing with no fault)."""
    from eutaxy.engine.shrink import _Shrinker
    from eutaxy.engine.session import violation_key

    session = _session(_lost_order_scenario(redeliveries=0))
    record = replay(session, LOSE_O2)
    violation = record.violations[0]
    shrunk = _Shrinker(session=session, target=violation_key(violation), protected=frozenset()).run(record, violation)
    assert ("msg-1", "msg-2") == shrunk.kept_events
    assert LOSE_O2.faults == shrunk.schedule.faults


def test_a_thousand_messages_with_one_duplicate_shrink_to_one_event_in_few_replays():
    """Delta debugging: halves, then quarters, before single removals; under 100 replays for 1000 events."""
    scenario = orders_scenario(events=1000, max_faults=1)
    platform = ToyPlatform(record=False)
    session = _session(scenario, platform)
    record = replay(session, Schedule(faults=(FaultAt(invocation="msg-537#1", ordinal=1, fault="crash_after"),)))
    assert ['"o-537"'] == record.violations[0].keys
    shrunk = shrink(session, record, record.violations[0])
    assert ("msg-537",) == shrunk.kept_events
    assert 1 == len(shrunk.schedule.faults)
    assert shrunk.replays < 100, shrunk.replays
    assert shrunk.capped is False


def test_every_pass_is_named_and_counted_and_the_counts_add_up_to_the_replays():
    """The passes run in SHRINK_PASSES order; their runs are every replay the shrinker spent."""
    from eutaxy.engine.shrink import SHRINK_PASSES

    scenario = orders_scenario(events=3, max_faults=2)
    session = _session(scenario)
    record = replay(session, Schedule(faults=(FaultAt(invocation="msg-2#1", ordinal=1, fault="crash_after"),)))
    shrunk = shrink(session, record, record.violations[0])
    # The short-batch pass runs only in a check that explores short batches (maxShortBatches above 0).
    assert [name for name, _ in SHRINK_PASSES if name != "remove_one_short_batch"] == [p.name for p in shrunk.passes]
    assert shrunk.replays == sum(p.runs for p in shrunk.passes)
    assert ("msg-2",) == shrunk.kept_events
    assert sum(p.shrinks for p in shrunk.passes) >= 1
    assert {"name", "runs", "cached", "shrinks"} == set(shrunk.passes[0].to_data())


def test_a_candidate_met_again_is_answered_by_the_cache_and_never_replayed():
    """o-1 written twice among four orders, o-3 and o-4 expected: msg-2 goes, then msg-1 alone is proposed.

    Removing the chunk msg-1, msg-2 (with its fault) is refused first; removing msg-2 alone
    is kept (its replay and the guard's fault-free run: three runs with the refused msg-1);
    then removing msg-1 proposes the chunk's candidate again (msg-3, msg-4, no fault), which
    the cache answers. No plan reaches the platform twice.
    """
    scenario = orders_scenario(events=4, max_faults=1)
    scenario["invariants"].append(
        {
            "kind": "at_least_once",
            "name": "o-3 and o-4 inserted",
            "selector": {"target": "Toy:db", "op": "insert", "kind": "result"},
            "key": "args.key",
            "expected": ["o-3", "o-4"],
        }
    )
    platform = ToyPlatform()
    session = _session(scenario, platform)
    record = replay(session, Schedule(faults=(FaultAt(invocation="msg-1#1", ordinal=1, fault="crash_after"),)))
    before = len(platform.plans)
    shrunk = shrink(session, record, record.violations[0])
    assert ("msg-1", "msg-3", "msg-4") == shrunk.kept_events
    counts = {p.name: p.to_data() for p in shrunk.passes}
    assert {"name": "remove_one_event", "runs": 3, "cached": 1, "shrinks": 1} == counts["remove_one_event"]
    performed = [repr(plan) for plan in platform.plans[before:]]
    assert len(performed) == len(set(performed)) == shrunk.replays


# -- turns: a lost update on the toy -------------------------------------------------------


def _race_scenario():
    """Two messages for one order, both in flight: each reads, then inserts unless it found the row.

    When both reads come before either insert, o-1 is inserted twice with no fault at all.
    """
    scenario = orders_scenario(events=2, max_faults=0, fixed=True, concurrency=2)
    for event in scenario["drive"]["events"]:
        event["body"]["key"] = "o-1"
    return scenario


def _race_runs(session):
    """Every distinct run of the race (each turn has at most two options), by the picks it took."""
    runs = {}
    for picks in itertools.product(range(2), repeat=6):
        record = replay(session, Schedule(turns=picks))
        runs.setdefault(record.schedule.turns, record)
    return runs


def test_a_concurrent_violation_shrinks_to_no_more_turn_switches_than_it_needs():
    """From every violating interleaving of the race, the shrunk trace switches invocations twice.

    Two switches are needed (msg-1 reads, msg-2 reads and inserts, msg-1 inserts), and no
    violating run of the race has fewer; three of its six violating runs have three.
    """
    session = _session(_race_scenario())
    violating = {picks: r for picks, r in _race_runs(session).items() if r.violations}
    fewest = min(turn_switches(r.result.effects) for r in violating.values())
    assert 2 == fewest
    assert 3 == sum(1 for r in violating.values() if turn_switches(r.result.effects) > fewest)
    for picks, record in sorted(violating.items()):
        shrunk = shrink(session, record, record.violations[0])
        assert fewest == turn_switches(shrunk.record.result.effects), (picks, shrunk.schedule.turns)
        assert ("msg-1", "msg-2") == shrunk.kept_events
        assert shrunk.violation.keys == ['"o-1"']
        before = schedule_sort_key(2, record.schedule, switches=turn_switches(record.result.effects))
        after = schedule_sort_key(2, shrunk.schedule, switches=turn_switches(shrunk.record.result.effects))
        assert after <= before, picks


def _three_switch_race(turns):
    """The race scenario replayed on ``turns``, checked to violate with three turn switches."""
    session = _session(_race_scenario())
    record = replay(session, Schedule(turns=turns))
    assert record.violations and 3 == turn_switches(record.result.effects)
    return session, record


def test_lower_turn_picks_alone_lowers_a_pick_and_keeps_the_later_ones():
    """From picks 0,1,1,0,1,0 (three switches) the pass lowers the fifth pick: 0,1,1,0,0,0, two switches."""
    session, record = _three_switch_race((0, 1, 1, 0, 1, 0))
    shrunk = shrink(session, record, record.violations[0], passes=["lower_turn_picks"])
    assert (0, 1, 1, 0, 0, 0) == shrunk.schedule.turns
    assert 2 == turn_switches(shrunk.record.result.effects)
    assert [1] == [p.shrinks for p in shrunk.passes]


def test_fewer_turn_switches_alone_raises_a_pick_when_the_trace_switches_less():
    """From 0,0,1,1,0,0 (three switches) no lower pick still violates; raising the fifth lets msg-2 finish first."""
    session, record = _three_switch_race((0, 0, 1, 1, 0, 0))
    alone = shrink(session, record, record.violations[0], passes=["lower_turn_picks"])
    assert (0, 0, 1, 1, 0, 0) == alone.schedule.turns
    shrunk = shrink(session, record, record.violations[0], passes=["fewer_turn_switches"])
    assert (0, 0, 1, 1, 1, 0) == shrunk.schedule.turns
    assert 2 == turn_switches(shrunk.record.result.effects)


def test_a_higher_pick_with_as_many_switches_is_refused():
    """Raising a pick without fewer switches is larger in the order: the minimal race schedule stays."""
    session = _session(_race_scenario())
    record = replay(session, Schedule(turns=(0, 0, 1, 1, 1, 0)))
    shrunk = shrink(session, record, record.violations[0], passes=["fewer_turn_switches"])
    assert (0, 0, 1, 1, 1, 0) == shrunk.schedule.turns
    assert [0] == [p.shrinks for p in shrunk.passes]
    assert shrunk.record is record


def _batch_record():
    """One invocation, msg-1#1, that took a batch of three orders: a write each, then an ack each."""
    from eutaxy.core.invocation_outcomes import InvocationOutcome
    from eutaxy.core.protocol import RunResult
    from eutaxy.engine.plans import first_plan
    from eutaxy.engine.session import RunRecord

    scenario = orders_scenario(events=3)
    for index, event in enumerate(scenario["drive"]["events"], start=1):
        event.update(id=f"msg-{index}", body={"orderId": f"o-{index}", "amountCents": 500})
    effects = [
        {"invocation": "msg-1#1", "ordinal": ordinal, "kind": "call", "target": "Toy:db", "op": "insert",
         "payload": {"args": {"sql": "INSERT", "params": [f"orders#o-{ordinal + 1}", 500]}}, "time": ordinal}
        for ordinal in range(3)
    ] + [
        {"invocation": "msg-1#1", "ordinal": 3 + index, "kind": "call", "target": "Queue:orders", "op": "ack",
         "payload": {"args": {"messageId": f"msg-{index + 1}"}}, "time": 3 + index}
        for index in range(3)
    ]
    invocations = [InvocationOutcome.from_data(
        {"invocation": "msg-1#1", "drive": "queue", "outcome": "returned", "messages": ["msg-1", "msg-2", "msg-3"]}
    )]
    return RunRecord(plan=first_plan(scenario, "batch", (), 0, max_short_batches=0), result=RunResult(effects=tuple(effects), invocations=invocations))


def test_removing_messages_from_a_batch_moves_its_fault_with_the_batch():
    """The batch keeps its other messages: the fault follows its point, earlier by the removed messages' points."""
    from eutaxy.engine.shrink import _batches, _fault_in_batch

    record = _batch_record()
    members = _batches(record)["msg-1#1"]
    assert ("msg-1", "msg-2", "msg-3") == members
    third = FaultAt("msg-1#1", 2, "error")  # the third order's insert
    # The batch is named after its first kept message; its points before the fault move up.
    assert FaultAt("msg-2#1", 1, "error") == _fault_in_batch(record, third, members, {"msg-1"})
    assert FaultAt("msg-3#1", 0, "error") == _fault_in_batch(record, third, members, {"msg-1", "msg-2"})
    assert FaultAt("msg-1#1", 1, "error") == _fault_in_batch(record, third, members, {"msg-2"})
    # The faulted point was the removed message's own, or nothing of the batch is left: no fault.
    assert None is _fault_in_batch(record, third, members, {"msg-3"})
    assert None is _fault_in_batch(record, third, members, {"msg-1", "msg-2", "msg-3"})
    # A fault on an ack after the removed message's own ack moves up past it too.
    last_ack = FaultAt("msg-1#1", 5, "crash_before")
    assert FaultAt("msg-2#1", 3, "crash_before") == _fault_in_batch(record, last_ack, members, {"msg-1"})
    # Nothing of the batch removed: the fault stays as it is.
    assert third == _fault_in_batch(record, third, members, {"msg-9"})


def test_removing_an_event_moves_a_fault_within_the_platforms_own_invocation():
    """A Durable Object's work after its answers (one invocation of the platform's own, doing the
    work of three orders): removing an order's event moves the fault up by that order's points,
    and the invocation keeps its name, since no event's removal removes it."""
    from eutaxy.core.protocol import RunResult
    from eutaxy.engine.plans import event_of_invocation, first_plan
    from eutaxy.engine.session import RunRecord
    from eutaxy.engine.shrink import _fault_in_own_work

    scenario = orders_scenario(events=3)
    for index, event in enumerate(scenario["drive"]["events"], start=1):
        event.update(id=f"msg-{index}", body={"orderId": f"o-{index}", "amountCents": 500})
    work = "DO:RUNNER/runner/after"
    assert work == event_of_invocation(work) and work == event_of_invocation(work + "#2")
    effects = [
        {"invocation": work, "ordinal": ordinal, "kind": "call", "target": "Toy:db", "op": "insert",
         "payload": {"args": {"sql": "INSERT", "params": [f"o-{ordinal + 1}", 500]}}, "time": ordinal}
        for ordinal in range(3)
    ]
    record = RunRecord(plan=first_plan(scenario, "own", (), 0, max_short_batches=0), result=RunResult(effects=tuple(effects)))
    third = FaultAt(work, 2, "crash_before")
    assert FaultAt(work, 1, "crash_before") == _fault_in_own_work(record, third, {"msg-1"}, ("msg-2", "msg-3"))
    assert FaultAt(work, 0, "crash_before") == _fault_in_own_work(record, third, {"msg-1", "msg-2"}, ("msg-3",))
    # The faulted point was the removed order's own: the fault goes with it.
    assert None is _fault_in_own_work(record, third, {"msg-3"}, ("msg-1", "msg-2"))


def test_removing_messages_from_a_short_batch_takes_that_many_fewer_and_renames_it():
    """A short batch of msg-1..msg-3 keeps its place: fewer messages, named after its first kept one."""
    from eutaxy.core.schedule import BatchAt
    from eutaxy.engine.shrink import _batches, _short_batch_without

    batches = _batches(_batch_record())
    short = BatchAt("msg-1#1", 3)
    assert BatchAt("msg-1#1", 2) == _short_batch_without(short, batches, {"msg-2"})
    assert BatchAt("msg-3#1", 1) == _short_batch_without(short, batches, {"msg-1", "msg-2"})
    assert short == _short_batch_without(short, batches, {"msg-9"})
    assert None is _short_batch_without(short, batches, {"msg-1", "msg-2", "msg-3"})
    # A batch of one lists no members: it goes with its message, and stays without it.
    assert None is _short_batch_without(BatchAt("msg-5#2", 1), batches, {"msg-5"})
    assert BatchAt("msg-5#2", 1) == _short_batch_without(BatchAt("msg-5#2", 1), batches, {"msg-1"})


def test_the_check_as_a_whole_ends_within_its_budget_plus_a_fixed_grace():
    """Past budgetMs + CHECK_GRACE_MS on the check's clock, the shrinker stops where it is, capped."""
    from eutaxy.engine.shrink import CHECK_GRACE_MS

    scenario = orders_scenario(events=1000, max_faults=1)
    now = [0.0]
    session = Session(platform=ToyPlatform(record=False), scenario=scenario, seed="shrink",
                      bounds=resolve_bounds(scenario), clock_ms=lambda: now[0], keep_first=0)
    record = replay(session, Schedule(faults=(FaultAt(invocation="msg-537#1", ordinal=1, fault="crash_after"),)))
    now[0] = session.bounds.budget_ms + CHECK_GRACE_MS
    shrunk = shrink(session, record, record.violations[0])
    assert shrunk.capped is True
    assert 0 == shrunk.replays
    assert 1000 == len(shrunk.kept_events)
