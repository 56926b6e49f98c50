"""Planted bug aws-fifo-double-forward: the checker must find it, and must pass its fixed twin."""

import os

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS_MAX = 200


def test_a_failed_write_after_the_send_forwards_the_order_twice():
    verdict = check_case(os.path.join(HERE, "aws-fifo-double-forward.sim.py"), max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "one-shipment-per-order" == verdict["violation"]["invariant"]
    (fault,) = verdict["schedule"]["faults"]
    sends = [e for e in verdict["trace"] if e["op"] == "SendMessage" and e["kind"] == "result"]
    assert 2 == len(sends) and [False, False] == [e["payload"]["result"]["deduplicated"] for e in sends]
    assert sends[1]["time"] - sends[0]["time"] >= 30_000  # the redelivery waited out the visibility timeout
    # The regression test the user gets fails here and passes on the fixed twin.
    assert_regression_test_catches(
        verdict,
        os.path.join(HERE, "aws-fifo-double-forward.sim.py"),
        os.path.join(HERE, "fixed", "aws-fifo-double-forward.sim.py"),
    )


def test_the_fixed_twin_is_bounded():
    """The redelivery's send is deduplicated by the order id."""
    verdict = check_case(os.path.join(HERE, "fixed", "aws-fifo-double-forward.sim.py"), max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)
