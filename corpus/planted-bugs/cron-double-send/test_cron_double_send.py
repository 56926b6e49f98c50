"""Corpus gate for the cron-double-send planted bug.

The buggy reminder job must be caught (VIOLATED on mailed-once-per-reminder, shrunk to one
fault and the one tick whose re-run mails again) and its fixed twin, which sends an
Idempotency-Key the mail API deduplicates by, must stay BOUNDED, within a run cap and a
generous budget, so the verdict never depends on the machine's speed. The story itself, a
crash between the send and the mark followed by the declared re-run, is replayed on both.
"""

from pathlib import Path

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case, replay_case

HERE = Path(__file__).resolve().parent
BUGGY = HERE / "cron-double-send.sim.py"
FIXED = HERE / "fixed" / "cron-double-send-fixed.sim.py"

#: A cap, so the verdict is the same on any machine (the bug is found in a few runs).
RUNS_MAX = 100

#: The first tick mailed r-1 and crashed before marking it sent (its point #2, the UPDATE).
CRASH_BEFORE_MARK = {"faults": [{"invocation": "tick-1#1", "ordinal": 2, "fault": "crash_before"}], "turns": []}


def test_buggy_job_is_violated_with_one_fault():
    """The second mail after a re-run is found, replayed and shrunk to one fault."""
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "mailed-once-per-reminder" == verdict["violation"]["invariant"]
    assert 1 == len(verdict["schedule"]["faults"])
    assert ["tick-1"] == verdict["keptEvents"]
    # The regression test the user gets fails here and passes on the fixed twin.
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def test_crash_before_mark_and_rerun_mail_twice():
    """The crash between the send and the mark, then the declared re-run: r-1 mailed twice."""
    outcome = replay_case(BUGGY, CRASH_BEFORE_MARK)
    assert "completed" == outcome["result"]["end"]["kind"]
    assert ["mailed-once-per-reminder"] == [v["invariant"] for v in outcome["violations"]]
    assert ['"r-1"'] == outcome["violations"][0]["keys"]
    invocations = [(i["invocation"], i["outcome"]) for i in outcome["result"]["invocations"]]
    assert [("tick-1#1", "crashed"), ("tick-1#2", "returned")] == invocations


def test_fixed_twin_is_bounded():
    """With the idempotency key every re-sent reminder is answered from the first send."""
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)


def test_fixed_twin_resend_is_not_effective():
    """The same crash and re-run: the second send of r-1 is recorded as not effective."""
    outcome = replay_case(FIXED, CRASH_BEFORE_MARK)
    assert [] == outcome["violations"]
    sends = [e for e in outcome["result"]["effects"] if e["target"] == "Fetch:mail-api" and e["kind"] == "result"]
    assert [("tick-1#1", True), ("tick-1#2", False)] == [
        (e["invocation"], e["payload"]["result"]["effective"]) for e in sends if e["payload"]["args"]["body"]["reminderId"] == "r-1"
    ]
