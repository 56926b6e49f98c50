"""Differential gate for queue-batch-decisions: proxied and raw runs must agree.

Two-message batches deciding every way a MessageBatch allows; the final table
and the per-attempt decisions (explicit and implicit acks, retries, the
redelivery of a batch's unacked messages after a throw, dead letters once
max_retries is spent) must be the same on both sides.
"""

from eutaxy.cloudflare.differential import decisions_of_raw, redelivery_table
from agreement import agreed, raw_rows

SEED = "queue-batch-decisions"


def test_proxied_and_raw_runs_agree(scenario):
    outcome = agreed(scenario, SEED)
    # max_retries 1 is tighter than maxRedeliveries 2: one redelivery, then the dead letter.
    assert [True, False] == redelivery_table(scenario)
    attempts = decisions_of_raw(outcome.raw)
    by_invocation = {attempt["invocation"]: attempt for attempt in attempts}
    # A throw after msg-3's ack redelivers only msg-4, which the next batch acks implicitly.
    assert [{"messageId": "msg-3", "op": "ack", "implicit": False}] == by_invocation["msg-3#1"]["decisions"]
    assert {"messageId": "msg-4", "op": "ack", "implicit": True} in by_invocation["msg-4#2"]["decisions"]
    assert [{"messageId": "msg-7", "attempts": 2}, {"messageId": "msg-8", "attempts": 2}] == by_invocation["msg-7#2"]["deadLettered"]
    assert 11 == len(raw_rows(outcome, "D1:DB", "seen"))
