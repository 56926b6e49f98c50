"""Corpus gate for the workflow-payment-timeout-lost planted bug (issue 35, planted bug c).

A checkout Workflow waits an hour for the payment webhook's event and drops the order on the
timeout; the provider resends an unanswered webhook two hours later. When the first delivery is
lost before its event reached the instance, the wait times out, the resend is refused by the
expired instance, and the paid order is never recorded. It must be caught (VIOLATED on
every-payment-recorded, shrunk to one fault), its regression test must fail on it and pass on the
fixed twin (a wait of a day, past the resend window), and the twin must stay BOUNDED.
"""

from pathlib import Path

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case, replay_case

HERE = Path(__file__).resolve().parent
BUGGY = HERE / "workflow-payment-timeout-lost.sim.py"
FIXED = HERE / "fixed" / "workflow-payment-timeout-lost-fixed.sim.py"

#: A cap, so the verdict is the same on any machine.
RUNS_MAX = 100

#: The webhook's first delivery crashed before its event reached the instance.
LOST_EVENT = {"faults": [{"invocation": "req-2#1", "ordinal": 0, "fault": "crash_before"}], "turns": []}


def test_buggy_checkout_is_violated_with_one_fault():
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "every-payment-recorded" == verdict["violation"]["invariant"]
    assert 1 == len(verdict["schedule"]["faults"])
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def _calls(outcome, op):
    return [e for e in outcome["result"]["effects"] if (e["op"], e["kind"]) == (op, "call")]


def test_the_lost_event_lets_the_wait_time_out_and_the_resend_is_refused():
    """The instance suspends on its wait (#1), wakes at its hour's deadline (#2) and times the
    wait out; the resend two hours later is refused: the instance is complete."""
    outcome = replay_case(BUGGY, LOST_EVENT)
    assert ["every-payment-recorded"] == [v["invariant"] for v in outcome["violations"]]
    [wait] = _calls(outcome, "wait")
    [timeout] = _calls(outcome, "wait_timeout")
    assert ("Workflow:CHECKOUT/o-1#1", "Workflow:CHECKOUT/o-1#2") == (wait["invocation"], timeout["invocation"])
    assert 3_600_000 <= timeout["time"] - wait["time"] < 3_600_100
    [resent] = [e for e in outcome["result"]["effects"] if (e["op"], e["kind"], e["invocation"]) == ("send_event", "result", "req-2#2")]
    assert "is complete" in resent["payload"]["result"]["error"]["message"]
    [instances] = [e["payload"]["rows"] for e in outcome["result"]["effects"] if (e["kind"], e["op"]) == ("snapshot", "instances")]
    assert [{"id": "o-1", "status": "complete", "params": {"orderId": "o-1", "paymentRef": "pay-o-1", "cents": 1200}, "output": {"orderId": "o-1", "status": "expired"}}] == instances


def test_fixed_twin_is_bounded():
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)


def test_fixed_twin_resend_wakes_the_waiting_instance():
    outcome = replay_case(FIXED, LOST_EVENT)
    assert [] == outcome["violations"]
    [wait] = _calls(outcome, "wait")
    [event] = _calls(outcome, "event")
    assert "Workflow:CHECKOUT/o-1#2" == event["invocation"] and event["time"] - wait["time"] >= 7_200_000, "woken by the resend, two hours on"
    [paid] = [e["payload"]["rows"] for e in outcome["result"]["effects"] if (e["kind"], e["op"]) == ("snapshot", "payments")]
    assert [{"payment_ref": "pay-o-1", "cents": 1200}] == paid
