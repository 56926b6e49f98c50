"""Planted bug aws-idempotent-inner-write, found (and its twin passed) with default settings.

The twin is the case that needs visibility timeouts: its redeliveries must come after the
idempotency lock expires, as on AWS, or the lock would hold them off and the order would
look lost (a false VIOLATED on every-order-recorded).
"""

import os

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS_MAX = 200


def test_a_lost_answer_inside_the_idempotent_function_writes_a_second_entry():
    verdict = check_case(os.path.join(HERE, "aws-idempotent-inner-write.sim.py"), max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert verdict["violation"]["invariant"] in ("one-entry-per-order", "one-ledger-row-per-order")
    (fault,) = verdict["schedule"]["faults"]
    # A lost answer of the put (ambiguous, crash_after), or a crash before the idempotency
    # record is marked complete after it (crash_before on that UpdateItem): the put committed.
    assert fault["fault"] in ("ambiguous", "crash_after", "crash_before")
    puts = [e for e in verdict["trace"] if e["target"] == "DynamoDB:ledger" and e["op"] == "PutItem" and e["kind"] == "result"]
    assert 2 == len(puts)
    # The second entry came after the visibility timeout, past the first attempt's lock.
    assert puts[1]["time"] - puts[0]["time"] >= 30_000
    # The regression test the user gets fails here and passes on the fixed twin.
    assert_regression_test_catches(
        verdict,
        os.path.join(HERE, "aws-idempotent-inner-write.sim.py"),
        os.path.join(HERE, "fixed", "aws-idempotent-inner-write.sim.py"),
    )


def test_the_fixed_twin_is_bounded_with_default_settings():
    verdict = check_case(os.path.join(HERE, "fixed", "aws-idempotent-inner-write.sim.py"), max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)
