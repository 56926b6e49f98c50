"""Planted bug aws-lost-message: the checker must find it, and must pass its fixed twin."""

import os

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case

HERE = os.path.dirname(os.path.abspath(__file__))
#: A run cap ends exploration; the budget is generous so the machine's speed never does.
RUNS_MAX = 200


def test_the_swallowed_error_loses_a_message():
    """An injected error on PutItem is swallowed: the message is deleted and never recorded."""
    verdict = check_case(os.path.join(HERE, "aws-lost-message.sim.py"), max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "every-order-recorded" == verdict["violation"]["invariant"]
    (fault,) = verdict["schedule"]["faults"]
    assert ("error", 0) == (fault["fault"], fault["ordinal"])
    assert [fault["invocation"]] == [event + "#1" for event in verdict["keptEvents"]]
    deletes = [e for e in verdict["trace"] if e["op"] == "delete" and e["kind"] == "result"]
    assert 1 == len(deletes), "the message was deleted although nothing was recorded"
    # The regression test the user gets fails here and passes on the fixed twin.
    assert_regression_test_catches(verdict, os.path.join(HERE, "aws-lost-message.sim.py"), os.path.join(HERE, "fixed", "aws-lost-message.sim.py"))


def test_the_fixed_twin_is_bounded():
    """Re-raising the error leaves the message for redelivery, which records it."""
    verdict = check_case(os.path.join(HERE, "fixed", "aws-lost-message.sim.py"), max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)
