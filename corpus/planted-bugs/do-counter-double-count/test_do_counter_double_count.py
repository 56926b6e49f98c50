"""Corpus gate for the do-counter-double-count planted bug (issue 16, planted bug c).

The buggy Worker retries a Durable Object stub call without an idempotency key: when the
call ran and its answer was lost (ambiguous), the retry records the same visit again. It
must be caught (VIOLATED on each-visit-counted-once, shrunk to one fault and one request),
its regression test must fail on it and pass on the fixed twin, and the twin (the visit id
as the object's idempotency key) must stay BOUNDED, all within a run cap and a generous
budget so the verdict never depends on the machine's speed.
"""

from pathlib import Path

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case, replay_case

HERE = Path(__file__).resolve().parent
BUGGY = HERE / "do-counter-double-count.sim.py"
FIXED = HERE / "fixed" / "do-counter-double-count-fixed.sim.py"

#: A cap, so the verdict is the same on any machine (the bug is found in a few runs).
RUNS_MAX = 100

#: The object recorded v-1, the Worker saw a lost connection and called again.
AMBIGUOUS_CALL = {"faults": [{"invocation": "req-1#1", "ordinal": 0, "fault": "ambiguous"}], "turns": []}


def test_buggy_counter_is_violated_with_one_fault():
    """The second record of one visit after a retried ambiguous call is found, replayed and shrunk to one fault."""
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "each-visit-counted-once" == verdict["violation"]["invariant"]
    [fault] = verdict["schedule"]["faults"]
    assert "ambiguous" == fault["fault"]
    assert 1 == len(verdict["keptEvents"])
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def test_ambiguous_call_and_retry_count_one_visit_twice():
    """The ambiguous outcome, then the Worker's retry: the object's table holds v-1 twice."""
    outcome = replay_case(BUGGY, AMBIGUOUS_CALL)
    assert "completed" == outcome["result"]["end"]["kind"]
    assert ["each-visit-counted-once"] == [v["invariant"] for v in outcome["violations"]]
    snapshots = {e["op"]: e["payload"]["rows"] for e in outcome["result"]["effects"] if e["kind"] == "snapshot"}
    assert [{"visit": "v-1"}, {"visit": "v-1"}, {"visit": "v-2"}] == snapshots["site/hits"]
    assert [{"key": "count", "value": 3}] == snapshots["site"]


def test_fixed_twin_is_bounded():
    """With the visit as the idempotency key every retry records nothing new."""
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)


def test_fixed_twin_retry_counts_once():
    """The same ambiguous call and retry on the twin: one row per visit, a count of two."""
    outcome = replay_case(FIXED, AMBIGUOUS_CALL)
    assert [] == outcome["violations"]
    snapshots = {e["op"]: e["payload"]["rows"] for e in outcome["result"]["effects"] if e["kind"] == "snapshot"}
    assert [{"visit": "v-1"}, {"visit": "v-2"}] == snapshots["site/hits"]
    assert [{"key": "count", "value": 2}] == snapshots["site"]
