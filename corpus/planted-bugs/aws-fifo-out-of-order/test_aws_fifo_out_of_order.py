"""Planted bug aws-fifo-out-of-order: the checker must find it, and must pass its fixed twin."""

import os

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS_MAX = 200


def test_a_failed_send_lets_the_customers_later_order_overtake_the_earlier():
    verdict = check_case(os.path.join(HERE, "aws-fifo-out-of-order.sim.py"), max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "forwarded-in-order" == verdict["violation"]["invariant"]
    assert ['"customer-a"'] == verdict["violation"]["keys"]
    # Shrunk to the customer's two orders and the one error on the first one's send.
    assert ["msg-1", "msg-2"] == verdict["keptEvents"]
    assert [{"invocation": "msg-1#1", "ordinal": 0, "fault": "error"}] == verdict["schedule"]["faults"]
    sends = [e for e in verdict["trace"] if e["op"] == "SendMessage" and e["kind"] == "result"]
    assert [2, 1] == [e["payload"]["args"]["body"]["seq"] for e in sends]
    # The first order came back once its visibility timeout, counted from the receive, ended.
    assert 30_000 == sends[1]["time"] - verdict["trace"][0]["time"]
    # The regression test the user gets fails here and passes on the fixed twin.
    assert_regression_test_catches(
        verdict,
        os.path.join(HERE, "aws-fifo-out-of-order.sim.py"),
        os.path.join(HERE, "fixed", "aws-fifo-out-of-order.sim.py"),
    )


def test_the_fixed_twin_is_bounded():
    """A failed send returns it and every later record, so the redelivery keeps their order."""
    verdict = check_case(os.path.join(HERE, "fixed", "aws-fifo-out-of-order.sim.py"), max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)
