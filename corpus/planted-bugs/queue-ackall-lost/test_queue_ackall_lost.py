"""Corpus gate for the queue-ackall-lost planted bug: ackAll() after a loop that stops at a failure.

The consumer takes Cloudflare's default batch size, so all four payments come in one
invocation. The buggy consumer must be caught (VIOLATED on every-payment-recorded) with a
shrunk trace that holds only the messages needed: the one whose write failed and the one
after it, which ackAll() acknowledged unrecorded. The shrinker removes the messages before
them from inside the batch and keeps the fault on the failed write. The fixed twin must
stay BOUNDED, and the regression test a user gets must fail on the bug and pass on the twin.
"""

from pathlib import Path

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case

HERE = Path(__file__).resolve().parent
BUGGY = HERE / "queue-ackall-lost.sim.py"
FIXED = HERE / "fixed" / "queue-ackall-lost-fixed.sim.py"

#: A run cap, so the verdict is the same on any machine (the first fault on a write before
#: the batch's last message shows the bug).
RUNS_MAX = 100


def test_ackall_after_a_failed_write_loses_the_rest_of_the_batch():
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "every-payment-recorded" == verdict["violation"]["invariant"]
    # Two messages: the failed one and the next, delivered together, the failed one first.
    first, lost = verdict["keptEvents"]
    (fault,) = verdict["schedule"]["faults"]
    assert (first + "#1", 0, "error") == (fault["invocation"], fault["ordinal"], fault["fault"])
    batch = [e for e in verdict["trace"] if e["invocation"] == first + "#1" and e["kind"] == "result"]
    decisions = [e for e in batch if e["target"] == "Queue:payments"]
    # retry() won for the failed message; ackAll() acked it in vain and acked the next one for real.
    assert [("retry", first, True), ("ack", first, False), ("ack", lost, True)] == [
        (e["op"], e["payload"]["args"]["messageId"], e["payload"]["result"]["effective"]) for e in decisions
    ]
    # The lost message's order was never written, in this delivery or any other.
    lost_order = decisions[-1]["payload"]["args"]["body"]["orderId"]
    written = [e["payload"]["args"]["params"][0] for e in verdict["trace"] if e["target"] == "D1:DB" and e["kind"] == "result"]
    assert written and lost_order not in written, written
    # The batch took every message of the scenario in one invocation (Cloudflare's default size).
    assert any("in batches of up to 10 (Cloudflare's default max_batch_size" in sentence for sentence in verdict["provenance"]["assumptions"])
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def test_the_fixed_twin_is_bounded():
    """Acking each recorded message and retrying the rest at a failure loses nothing."""
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)
