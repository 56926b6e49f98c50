"""Differential gate for do-ledger-calls: proxied and raw runs must agree on every object.

The case runs fault-free once through Eutaxy's Durable Object proxy (a plan with no faults,
through the platform) and once with the handler on the raw namespace in the same Miniflare
instance; every object's key-value rows and SQL tables (the object no call reached too), the
D1 table and the per-attempt decisions must be the same. A second test plants a divergence on
the proxied side, as a proxy passing the wrong argument would, and requires the runner to
report it, so this gate can fail.
"""

from eutaxy.cloudflare.differential import decisions_of_raw
from agreement import agreed, raw_rows
from divergence import differing_tables, diverged

SEED = "do-ledger-calls"


def test_proxied_and_raw_runs_agree(scenario):
    outcome = agreed(scenario, SEED)
    # The case exercises what it says: the retry, the overdraft's dead letter, every object.
    attempts = decisions_of_raw(outcome.raw)
    assert {"messageId": "msg-2", "op": "retry", "implicit": False} in attempts[1]["decisions"]
    # No maxRedeliveries: the consumer's max_retries 3 decides, so the overdraft is dead-lettered after four deliveries.
    assert [{"messageId": "msg-3", "attempts": 4}] == attempts[-1]["deadLettered"]
    objects = sorted(snapshot["table"] for snapshot in outcome.raw["snapshots"] if snapshot["target"] == "DO:ACCOUNTS")
    assert ["alice", "alice/entries", "bob", "bob/entries", "carol", "carol/entries", "dave", "dave/entries"] == objects
    assert {"key": "balance", "value": 1200} in raw_rows(outcome, "DO:ACCOUNTS", "alice")
    assert {"key": "balance", "value": 200} in raw_rows(outcome, "DO:ACCOUNTS", "bob")
    assert [{"key": "balance", "value": 7}] == raw_rows(outcome, "DO:ACCOUNTS", "carol")
    assert [1000, 1200, 1500] == sorted(row["balance"] for row in raw_rows(outcome, "DO:ACCOUNTS", "alice/entries"))
    assert {"account": "alice", "op": "check", "cents": 1200} in raw_rows(outcome, "D1:DB", "audit")


def deposit_a_cent_more_into_dave(scenario):
    """As a buggy stub proxy would: the proxied side deposits 1 cent more into dave than the message says."""
    for event in scenario["drive"]["events"]:
        if event["body"]["account"] == "dave":
            event["body"]["cents"] += 1


def test_a_planted_divergence_is_reported(scenario):
    outcome = diverged(scenario, SEED, deposit_a_cent_more_into_dave)
    tables = sorted(differing_tables(outcome))
    assert "DO:ACCOUNTS/dave" in tables and "DO:ACCOUNTS/dave/entries" in tables, tables
