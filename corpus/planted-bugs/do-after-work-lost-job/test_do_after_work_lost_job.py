"""Corpus gate for the do-after-work-lost-job planted bug (issue 31 item 7).

A Durable Object answers "accepted" and records the job in a timer of its own, after its
answer: work that runs as the object's own invocation, DO:RUNNER/runner/after. A crash in it
resets the object, and the caller, which got its 202, never resends, so the accepted job is
lost. It must be caught (VIOLATED on every-accepted-job-recorded, shrunk to one fault in the
work after the answer and one job), its regression test must fail on it and pass on the fixed
twin (the job recorded before the answer), and the twin must stay BOUNDED, all within a run
cap and a generous budget.
"""

from pathlib import Path

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case, replay_case

HERE = Path(__file__).resolve().parent
BUGGY = HERE / "do-after-work-lost-job.sim.py"
FIXED = HERE / "fixed" / "do-after-work-lost-job-fixed.sim.py"

#: A cap, so the verdict is the same on any machine (the bug is found in a few runs).
RUNS_MAX = 100

#: The object's work after its answer to j-1: its first point is the job's write.
CRASH_IN_THE_WORK = {"faults": [{"invocation": "DO:RUNNER/runner/after", "ordinal": 0, "fault": "crash_before"}], "turns": []}


def test_buggy_runner_is_violated_with_one_fault_in_the_work_after_the_answer():
    """The lost job is found, replayed and shrunk to one fault, in the object's own invocation."""
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "every-accepted-job-recorded" == verdict["violation"]["invariant"]
    [fault] = verdict["schedule"]["faults"]
    assert ("DO:RUNNER/runner/after", 0) == (fault["invocation"], fault["ordinal"]), fault
    assert 1 == len(verdict["keptEvents"])
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def test_a_crash_in_the_work_after_the_answer_loses_the_accepted_job():
    """crash_before at the timer's write: the caller got 202 and is done; j-1 is never recorded,
    while j-2 meets the object's next instance, whose work is /after#2."""
    outcome = replay_case(BUGGY, CRASH_IN_THE_WORK)
    assert "completed" == outcome["result"]["end"]["kind"]
    assert ["every-accepted-job-recorded"] == [v["invariant"] for v in outcome["violations"]]
    effects = outcome["result"]["effects"]
    assert [202, 202] == [e["payload"]["result"]["status"] for e in effects if (e["op"], e["kind"]) == ("response", "result")]
    assert ["DO:RUNNER/runner/after", "DO:RUNNER/runner/after#2"] == sorted({e["invocation"] for e in effects if e["invocation"].startswith("DO:")})
    [jobs] = [e["payload"]["rows"] for e in effects if (e["kind"], e["op"]) == ("snapshot", "jobs")]
    assert [{"job_id": "j-2", "task": "encode", "noted": 1}] == jobs


def test_fixed_twin_is_bounded():
    """Recording the job before the answer puts every failure in front of the caller, who resends."""
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)


def test_fixed_twin_keeps_the_job_when_the_follow_up_crashes():
    outcome = replay_case(FIXED, CRASH_IN_THE_WORK)
    assert [] == outcome["violations"]
    [jobs] = [e["payload"]["rows"] for e in outcome["result"]["effects"] if (e["kind"], e["op"]) == ("snapshot", "jobs")]
    assert [{"job_id": "j-1", "task": "resize", "noted": 0}, {"job_id": "j-2", "task": "encode", "noted": 1}] == jobs
