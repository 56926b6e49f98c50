"""Corpus gate for the do-alarm-double-charge planted bug (issue 16, planted bug a).

A Durable Object's alarm charges a stored order and only then forgets it; a crash after the
charge committed makes Cloudflare retry the alarm, which charges again. It must be caught
(VIOLATED on charged-once-per-order, shrunk to one fault and one order), its regression test
must fail on it and pass on the fixed twin (the order id as the charge's idempotency key), and
the twin must stay BOUNDED, all within a run cap and a generous budget.
"""

from pathlib import Path

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case, replay_case

HERE = Path(__file__).resolve().parent
BUGGY = HERE / "do-alarm-double-charge.sim.py"
FIXED = HERE / "fixed" / "do-alarm-double-charge-fixed.sim.py"

#: A cap, so the verdict is the same on any machine.
RUNS_MAX = 100

#: The alarm's charge of o-1 committed, then the object died before forgetting the order.
CRASH_AFTER_CHARGE = {"faults": [{"invocation": "DO:BILLING/o-1/alarm.1#1", "ordinal": 1, "fault": "crash_after"}], "turns": []}


def test_buggy_alarm_is_violated_with_one_fault():
    """The second charge by the retried alarm is found, replayed and shrunk to one fault."""
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "charged-once-per-order" == verdict["violation"]["invariant"]
    [fault] = verdict["schedule"]["faults"]
    # At the charge inside the alarm: committed, then the alarm failed (crash_after, or an
    # ambiguous outcome the alarm rethrows), so it is retried and charges again.
    assert fault["fault"] in ("crash_after", "ambiguous") and "/alarm." in fault["invocation"], fault
    assert 1 == fault["ordinal"], fault
    assert 1 == len(verdict["keptEvents"])
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def test_the_retried_alarm_charges_twice():
    """crash_after at the charge: the alarm is retried (retryCount 1) and charges o-1 again."""
    outcome = replay_case(BUGGY, CRASH_AFTER_CHARGE)
    assert "completed" == outcome["result"]["end"]["kind"]
    assert ["charged-once-per-order"] == [v["invariant"] for v in outcome["violations"]]
    attempts = [e["invocation"] for e in outcome["result"]["effects"] if (e["op"], e["kind"]) == ("alarm", "call") and "/o-1/" in e["invocation"]]
    assert ["DO:BILLING/o-1/alarm.1#1", "DO:BILLING/o-1/alarm.1#2"] == attempts


def test_fixed_twin_is_bounded():
    """With the order id as the charge's key every retried alarm charges nothing new."""
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)


def test_fixed_twin_retry_charges_once():
    outcome = replay_case(FIXED, CRASH_AFTER_CHARGE)
    assert [] == outcome["violations"]
    [charges] = [e["payload"]["rows"] for e in outcome["result"]["effects"] if (e["kind"], e["op"]) == ("snapshot", "charges")]
    assert [{"order_id": "o-1", "cents": 1200}, {"order_id": "o-2", "cents": 500}] == charges
