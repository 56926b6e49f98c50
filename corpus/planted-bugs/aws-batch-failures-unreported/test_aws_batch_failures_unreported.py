"""Planted bug aws-batch-failures-unreported: a partial failure of a batch reported as none.

Lambda's default batch of 10 hands the four orders to one invocation. An error on one
PutItem while another succeeds is a partial failure the handler swallows: it returns no
batchItemFailures, so SQS deletes the failed record. The checker must find it with a shrunk
trace holding only the messages needed (the failed one and one that succeeded beside it;
the shrinker removes the others from inside the batch), and must pass the fixed twin.
"""

import os

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case

HERE = os.path.dirname(os.path.abspath(__file__))
BUGGY = os.path.join(HERE, "aws-batch-failures-unreported.sim.py")
FIXED = os.path.join(HERE, "fixed", "aws-batch-failures-unreported.sim.py")
#: A run cap ends exploration; the budget is generous so the machine's speed never does.
RUNS_MAX = 200


def test_a_partial_failure_reported_as_none_loses_the_failed_order():
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "every-order-recorded" == verdict["violation"]["invariant"]
    # Two messages in one batch: the failed one first, then the one whose success made it partial.
    failed, succeeded = verdict["keptEvents"]
    (fault,) = verdict["schedule"]["faults"]
    assert (failed + "#1", 0, "error") == (fault["invocation"], fault["ordinal"], fault["fault"])
    assert f'event {failed} ' in verdict["violation"]["message"]
    # Both records were deleted after the one invocation: nothing came back to be recorded.
    deletes = [e["payload"]["args"]["messageId"] for e in verdict["trace"] if e["op"] == "delete" and e["kind"] == "result"]
    assert [failed, succeeded] == deletes
    assert {failed + "#1"} == {e["invocation"] for e in verdict["trace"] if e["invocation"] != "snapshot"}
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def test_the_fixed_twin_is_bounded():
    """Returning the failed records as batchItemFailures delivers them again, and they are recorded."""
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)
