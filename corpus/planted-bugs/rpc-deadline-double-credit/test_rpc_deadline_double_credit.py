"""Corpus gate for the rpc-deadline-double-credit planted bug.

The buggy ledger entrypoint must be caught (VIOLATED on credited-once-per-transfer, shrunk to
one fault and the one call credited twice) and its fixed twin, whose insert does nothing for a
transfer already credited, must stay BOUNDED, within a run cap and a generous budget, so the
verdict never depends on the machine's speed. The story itself, the answer reaching the caller
past its deadline (the response's ambiguous outcome) and the caller's resend, is replayed on both.
"""

from pathlib import Path

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case, replay_case

HERE = Path(__file__).resolve().parent
BUGGY = HERE / "rpc-deadline-double-credit.sim.py"
FIXED = HERE / "fixed" / "rpc-deadline-double-credit-fixed.sim.py"

#: A cap, so the verdict is the same on any machine (the bug is found in a few runs).
RUNS_MAX = 100

#: t-1's credit was written and answered, but the caller counted the answer failed (its deadline).
PAST_DEADLINE = {"faults": [{"invocation": "call-1#1", "ordinal": 2, "fault": "ambiguous"}], "turns": []}


def test_buggy_ledger_is_violated_with_one_fault():
    """The second credit after a resend is found, replayed and shrunk to one fault."""
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "credited-once-per-transfer" == verdict["violation"]["invariant"]
    assert 1 == len(verdict["schedule"]["faults"])
    assert 1 == len(verdict["keptEvents"])
    # The regression test the user gets fails here and passes on the fixed twin.
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def test_answer_past_the_deadline_and_resend_credit_twice():
    """The answer counted failed at the deadline, then the caller's resend: two entries for t-1."""
    outcome = replay_case(BUGGY, PAST_DEADLINE)
    assert "completed" == outcome["result"]["end"]["kind"]
    assert ["credited-once-per-transfer"] == [v["invariant"] for v in outcome["violations"]]
    assert ['"t-1"'] == outcome["violations"][0]["keys"]
    invocations = [(i["invocation"], i["drive"], i["outcome"]) for i in outcome["result"]["invocations"]]
    # The resend waits its second of delay, so t-2 is credited in between.
    assert [("call-1#1", "rpc", "returned"), ("call-2#1", "rpc", "returned"), ("call-1#2", "rpc", "returned")] == invocations


def test_fixed_twin_is_bounded():
    """With the unique transfer id every resent credit writes nothing."""
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)


def test_fixed_twin_resend_changes_no_row():
    """The same late answer and resend: the resent insert changes no row; the balance counts each transfer once."""
    outcome = replay_case(FIXED, PAST_DEADLINE)
    assert [] == outcome["violations"]
    effects = outcome["result"]["effects"]
    writes = [e for e in effects if e["target"] == "D1:DB" and e["op"] == "run" and e["kind"] == "result"]
    assert [("call-1#1", 1), ("call-1#2", 0)] == [
        (e["invocation"], e["payload"]["result"]["changes"]) for e in writes if e["payload"]["args"]["params"][0] == "t-1"
    ]
    answers = [(e["invocation"], e["payload"]["result"]) for e in effects if e["target"] == "Rpc:Ledger.credit" and e["kind"] == "result"]
    assert [("call-1#1", 1200), ("call-2#1", 1700), ("call-1#2", 1700)] == [
        (invocation, result["value"]["balanceCents"]) for invocation, result in answers
    ]
