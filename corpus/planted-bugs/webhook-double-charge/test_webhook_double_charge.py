"""Corpus gate for the webhook-double-charge planted bug.

The buggy webhook must be caught (VIOLATED on charged-once-per-order, shrunk to
one fault and the one request charged twice) and its fixed twin, which sends an
Idempotency-Key the payment API deduplicates by, must stay BOUNDED, both within
a run cap and a generous budget, so the verdict never depends on the machine's
speed. The seeds' own story, the ambiguous outcome of the charge followed by
the shop's resend, is replayed on both. A planted bug the checker misses fails CI.
"""

from pathlib import Path


from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case, replay_case

HERE = Path(__file__).resolve().parent
BUGGY = HERE / "webhook-double-charge.sim.py"
FIXED = HERE / "fixed" / "webhook-double-charge-fixed.sim.py"

#: A cap, so the verdict is the same on any machine (the bug is found in a few runs).
RUNS_MAX = 100

#: The charge for o-1 committed, the Worker saw a lost connection and answered 500.
AMBIGUOUS_CHARGE = {"faults": [{"invocation": "req-1#1", "ordinal": 0, "fault": "ambiguous"}], "turns": []}


def test_buggy_webhook_is_violated_with_one_fault():
    """The second charge after a resend is found, replayed and shrunk to one fault."""
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "charged-once-per-order" == verdict["violation"]["invariant"]
    assert 1 == len(verdict["schedule"]["faults"])
    assert 1 == len(verdict["keptEvents"])
    # The regression test the user gets fails here and passes on the fixed twin.
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def test_ambiguous_charge_and_resend_charge_twice():
    """The ambiguous outcome, then the caller's resend: two effective charges for o-1."""
    outcome = replay_case(BUGGY, AMBIGUOUS_CHARGE)
    assert "completed" == outcome["result"]["end"]["kind"]
    assert ["charged-once-per-order"] == [v["invariant"] for v in outcome["violations"]]
    assert ['"o-1"'] == outcome["violations"][0]["keys"]


def test_fixed_twin_is_bounded():
    """With the idempotency key every resend is answered from the first charge."""
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)


def test_fixed_twin_resend_is_not_effective():
    """The same ambiguous charge and resend: the resend is recorded as not effective."""
    outcome = replay_case(FIXED, AMBIGUOUS_CHARGE)
    assert [] == outcome["violations"]
    charges = [
        e for e in outcome["result"]["effects"] if e["target"] == "Fetch:payments-api" and e["kind"] == "result"
    ]
    assert [("req-1#1", True), ("req-1#2", False)] == [
        (e["invocation"], e["payload"]["result"]["effective"]) for e in charges if e["payload"]["args"]["body"]["orderId"] == "o-1"
    ]
