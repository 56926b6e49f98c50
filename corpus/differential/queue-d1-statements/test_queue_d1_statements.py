"""Differential gate for queue-d1-statements: proxied and raw runs must agree.

The case runs fault-free once through Eutaxy's proxies (a plan with no faults,
through the platform) and once with the handler called on the raw bindings in
the same Miniflare instance; the final D1 tables and the per-attempt decisions
must be the same. A second test plants a divergence on the proxied side, as a
proxy binding the wrong parameters would, and requires the runner to report
it, so this gate can fail.
"""

from eutaxy.cloudflare.differential import decisions_of_raw
from agreement import agreed, raw_rows
from divergence import differing_tables, diverged

SEED = "queue-d1-statements"


def test_proxied_and_raw_runs_agree(scenario):
    outcome = agreed(scenario, SEED)
    # The case exercises what it says: the retry, the dead letter after every allowed
    # redelivery, the duplicate's skipped ledger insert, and all three tables.
    attempts = decisions_of_raw(outcome.raw)
    assert {"messageId": "msg-2", "op": "retry", "implicit": False} in attempts[1]["decisions"]
    # No maxRedeliveries: the consumer's max_retries 3 decides, so the poison message is dead-lettered after four deliveries.
    assert [{"messageId": "msg-4", "attempts": 4}] == attempts[-1]["deadLettered"]
    assert [("D1:DB", "audit"), ("D1:DB", "ledger"), ("D1:DB", "orders")] == sorted((s["target"], s["table"]) for s in outcome.raw["snapshots"])
    assert ["o-1", "o-2", "o-4"] == sorted(row["order_id"] for row in raw_rows(outcome, "D1:DB", "ledger"))
    assert 4 == len(raw_rows(outcome, "D1:DB", "audit"))


def bind_a_cent_more_for_o4(scenario):
    """As a buggy D1 proxy would: the proxied side binds 1 cent more for order o-4 than the message says."""
    for event in scenario["drive"]["events"]:
        if event["body"]["orderId"] == "o-4":
            event["body"]["amountCents"] += 1


def test_a_planted_divergence_is_reported(scenario):
    outcome = diverged(scenario, SEED, bind_a_cent_more_for_o4)
    tables = differing_tables(outcome)
    assert ["D1:DB/ledger", "D1:DB/orders"] == sorted(tables)
    assert ['{"amount_cents":251,"id":2,"order_id":"o-4"}'] == tables["D1:DB/ledger"]["proxiedOnly"]
    assert ['{"amount_cents":250,"id":2,"order_id":"o-4"}'] == tables["D1:DB/ledger"]["rawOnly"]
    # Decisions are unaffected by the planted change: only the tables differ.
    assert all(difference["kind"] == "table" for difference in outcome.differences)
