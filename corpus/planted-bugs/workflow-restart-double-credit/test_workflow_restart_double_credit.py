"""Corpus gate for the workflow-restart-double-credit planted bug (issue 35, planted bug a).

A Workflow inserts a welcome credit in run() itself, outside any step. The engine re-runs run()
from the start whenever it restarts the instance, so any restart after the credit inserts it
again. It must be caught (VIOLATED on credited-once-per-user, shrunk to one fault), its regression
test must fail on it and pass on the fixed twin (the credit an idempotent step), and the twin must
stay BOUNDED, all within a run cap.
"""

from pathlib import Path

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case, replay_case

HERE = Path(__file__).resolve().parent
BUGGY = HERE / "workflow-restart-double-credit.sim.py"
FIXED = HERE / "fixed" / "workflow-restart-double-credit-fixed.sim.py"

#: A cap, so the verdict is the same on any machine.
RUNS_MAX = 100

#: The instance restarts before its "send welcome" step runs (#5: after the credit, the profile step, the sleep).
CRASH_BEFORE_WELCOME = {"faults": [{"invocation": "Workflow:WELCOME/u-1#1", "ordinal": 5, "fault": "crash_before"}], "turns": []}


def test_buggy_workflow_is_violated_with_one_fault():
    """The second credit is found, replayed and shrunk to one fault that restarts the instance."""
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "credited-once-per-user" == verdict["violation"]["invariant"]
    [fault] = verdict["schedule"]["faults"]
    assert fault["invocation"].startswith("Workflow:WELCOME/u-1#"), fault
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def test_a_restart_repeats_code_outside_steps_and_replays_the_steps():
    """crash_before at the last step: run() starts again (#2), inserts the credit again, and
    replays "load profile" and the day's sleep from what the engine persisted (no effects)."""
    outcome = replay_case(BUGGY, CRASH_BEFORE_WELCOME)
    assert "completed" == outcome["result"]["end"]["kind"]
    assert ["credited-once-per-user"] == [v["invariant"] for v in outcome["violations"]]
    second = [(e["target"], e["op"]) for e in outcome["result"]["effects"] if e["invocation"] == "Workflow:WELCOME/u-1#2" and e["kind"] == "call"]
    assert [("D1:DB", "run"), ("Workflow:WELCOME", "step"), ("Workflow:WELCOME", "step_result")] == second
    sleeps = [e for e in outcome["result"]["effects"] if (e["op"], e["kind"]) == ("sleep", "call")]
    assert ["Workflow:WELCOME/u-1#1"] == [e["invocation"] for e in sleeps]
    [instance] = [e["payload"]["rows"] for e in outcome["result"]["effects"] if (e["kind"], e["target"], e["op"]) == ("snapshot", "Workflow:WELCOME", "instances")][0]
    assert "complete" == instance["status"]


def test_fixed_twin_is_bounded():
    """The credit as an idempotent step: a restart replays it, a re-run inserts nothing."""
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)


def test_fixed_twin_restart_credits_once():
    outcome = replay_case(FIXED, {"faults": [{"invocation": "Workflow:WELCOME/u-1#1", "ordinal": 7, "fault": "crash_before"}], "turns": []})
    assert [] == outcome["violations"]
    [credits] = [e["payload"]["rows"] for e in outcome["result"]["effects"] if (e["kind"], e["op"]) == ("snapshot", "credits")]
    assert [{"user_id": "u-1", "cents": 500}] == credits
