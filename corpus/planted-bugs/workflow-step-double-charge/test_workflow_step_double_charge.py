"""Corpus gate for the workflow-step-double-charge planted bug (issue 35, planted bug b).

A Workflow's charge step is not idempotent: when its insert commits and the engine restarts the
instance before it persists the step's result (crash_after at the step's result point), the
restart runs the step again and charges the order twice. It must be caught (VIOLATED on
charged-once-per-order, shrunk to one fault), its regression test must fail on it and pass on the
fixed twin (the order id as the charge's key), and the twin must stay BOUNDED, all within a run cap.
"""

from pathlib import Path

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case, replay_case

HERE = Path(__file__).resolve().parent
BUGGY = HERE / "workflow-step-double-charge.sim.py"
FIXED = HERE / "fixed" / "workflow-step-double-charge-fixed.sim.py"

#: A cap, so the verdict is the same on any machine.
RUNS_MAX = 100

#: The charge step ran and committed, then the instance restarted before its result was persisted.
CRASH_AFTER_CHARGE_STEP = {"faults": [{"invocation": "Workflow:PAYMENT/o-1#1", "ordinal": 2, "fault": "crash_after"}], "turns": []}


def test_buggy_step_is_violated_with_one_fault():
    """The second charge is found, replayed and shrunk to one fault inside the instance."""
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "charged-once-per-order" == verdict["violation"]["invariant"]
    [fault] = verdict["schedule"]["faults"]
    assert fault["invocation"].startswith("Workflow:PAYMENT/o-1#"), fault
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def _effects(outcome, op, kind="call"):
    return [e for e in outcome["result"]["effects"] if (e["op"], e["kind"]) == (op, kind)]


def test_crash_after_the_step_runs_it_again_after_the_restart():
    """crash_after at the charge's step_result: the instance restarts (#2), finds no persisted
    result for "charge" and runs it again; the second run's result is the one persisted."""
    outcome = replay_case(BUGGY, CRASH_AFTER_CHARGE_STEP)
    assert "completed" == outcome["result"]["end"]["kind"]
    assert ["charged-once-per-order"] == [v["invariant"] for v in outcome["violations"]]
    steps = [(e["invocation"], e["payload"]["args"]["step"], e["payload"]["args"]["attempt"]) for e in _effects(outcome, "step")]
    assert [("Workflow:PAYMENT/o-1#1", "charge", 1), ("Workflow:PAYMENT/o-1#2", "charge", 2), ("Workflow:PAYMENT/o-1#2", "ship", 1)] == steps
    [instance] = [e["payload"]["rows"] for e in outcome["result"]["effects"] if (e["kind"], e["target"], e["op"]) == ("snapshot", "Workflow:PAYMENT", "instances")][0]
    assert {"id": "o-1", "status": "complete", "params": {"orderId": "o-1", "cents": 1200}, "output": {"orderId": "o-1", "chargeId": 2}} == instance
    [persisted] = [e["payload"]["rows"] for e in outcome["result"]["effects"] if (e["kind"], e["target"], e["op"]) == ("snapshot", "Workflow:PAYMENT", "steps")]
    assert [{"instance": "o-1", "step": "charge", "count": 1, "value": {"chargeId": 2}}, {"instance": "o-1", "step": "ship", "count": 1, "value": {"shipped": True}}] == persisted


def test_the_sleep_and_the_retry_wait_in_virtual_time():
    """The hold sleeps a minute of virtual time; an ambiguous attempt is retried 10 s later (the documented default)."""
    ambiguous = {"faults": [{"invocation": "Workflow:PAYMENT/o-1#1", "ordinal": 2, "fault": "ambiguous"}], "turns": []}
    outcome = replay_case(BUGGY, ambiguous)
    attempts = [(e["payload"]["args"]["step"], e["payload"]["args"]["attempt"], e["time"]) for e in _effects(outcome, "step")]
    [(_, _, first), (_, second_attempt, second), (_, _, ship)] = attempts
    assert 2 == second_attempt
    assert 10_000 <= second - first < 10_100, attempts
    assert 60_000 <= ship - second < 60_100, attempts
    # The attempt ran (its result is recorded) but counted as failed: the charge is in twice.
    [charges] = [e["payload"]["rows"] for e in outcome["result"]["effects"] if (e["kind"], e["op"]) == ("snapshot", "charges")]
    assert 2 == len(charges)


def test_fixed_twin_is_bounded():
    """With the order id as the charge's key a step run again charges nothing new."""
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)


def test_fixed_twin_step_run_again_charges_once():
    outcome = replay_case(FIXED, CRASH_AFTER_CHARGE_STEP)
    assert [] == outcome["violations"]
    [charges] = [e["payload"]["rows"] for e in outcome["result"]["effects"] if (e["kind"], e["op"]) == ("snapshot", "charges")]
    assert [{"order_id": "o-1", "cents": 1200}] == charges
