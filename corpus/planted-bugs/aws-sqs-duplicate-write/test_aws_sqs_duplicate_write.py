"""Planted bug aws-sqs-duplicate-write: the checker must find it, and must pass its fixed twin."""

import os

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case

HERE = os.path.dirname(os.path.abspath(__file__))
#: A run cap ends exploration; the budget is generous so the machine's speed never does.
RUNS_MAX = 200


def test_a_redelivery_after_the_write_duplicates_the_ledger_entry():
    """A crash after a committed PutItem redelivers the message, which writes a second entry.

    Lambda's default batch of 10 hands both messages to one invocation, and a crash anywhere
    in it returns the whole batch: a crash before the second order's update brings the first
    order back, whose entry was already written. The shrunk trace keeps both messages, as the
    crash is at the second one's point and the duplicate is the first one's.
    """
    verdict = check_case(os.path.join(HERE, "aws-sqs-duplicate-write.sim.py"), max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert verdict["violation"]["invariant"] in ("ledger-entry-once-per-order", "one-ledger-row-per-order")
    assert ["msg-1", "msg-2"] == verdict["keptEvents"]
    (fault,) = verdict["schedule"]["faults"]
    assert ("msg-1#1", "crash_before") == (fault["invocation"], fault["fault"])
    crashed = [e for e in verdict["trace"] if e["kind"] == "fault"]
    assert [("UpdateItem", "o-2")] == [(e["op"], e["payload"]["args"]["Key"]["order_id"]) for e in crashed]
    puts = [e["payload"]["args"]["Item"]["order_id"] for e in verdict["trace"] if e["op"] == "PutItem" and e["kind"] == "result"]
    assert 2 == puts.count("o-1"), puts
    # The regression test the user gets fails here and passes on the fixed twin.
    assert_regression_test_catches(verdict, os.path.join(HERE, "aws-sqs-duplicate-write.sim.py"), os.path.join(HERE, "fixed", "aws-sqs-duplicate-write.sim.py"))


def test_the_fixed_twin_is_bounded():
    """A conditional put keyed by the order id makes the redelivery a no-op."""
    verdict = check_case(os.path.join(HERE, "fixed", "aws-sqs-duplicate-write.sim.py"), max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)
