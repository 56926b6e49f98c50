"""Differential gate for queue-d1-foreign-keys: D1's foreign keys, proxied and raw, must agree.

Both runs use Miniflare's D1, where PRAGMA foreign_keys is on as on D1: the case
requires the refused inserts and the cascades to happen on both sides, the same
(the final tables, with the error text each refusal recorded, and the decisions).
A second test plants a divergence on the proxied side, a message naming another
customer, and requires the runner to report it, so this gate can fail.
"""

from agreement import agreed, raw_rows
from divergence import differing_tables, diverged

SEED = "queue-d1-foreign-keys"


def test_proxied_and_raw_runs_agree_on_foreign_keys(scenario):
    outcome = agreed(scenario, SEED)
    # The case exercises what it says: D1 refused three writes for their foreign keys ...
    rejections = {row["message_id"]: row["reason"] for row in raw_rows(outcome, "D1:DB", "rejections")}
    assert ["msg-2", "msg-3", "msg-6"] == sorted(rejections)
    assert all("FOREIGN KEY constraint failed" in reason for reason in rejections.values()), rejections
    # ... the failed batch wrote nothing, and the cascades removed o-1's lines and all of c-2's.
    assert ["c-1"] == [row["id"] for row in raw_rows(outcome, "D1:DB", "customers")]
    assert ["o-10"] == [row["id"] for row in raw_rows(outcome, "D1:DB", "orders")]
    assert [("o-10", 0, "tea"), ("o-10", 1, "cup")] == sorted((row["order_id"], row["line"], row["sku"]) for row in raw_rows(outcome, "D1:DB", "order_lines"))


def order_for_the_forgotten_customer_before_forgetting(scenario):
    """As a proxy that reordered statements might: the proxied side forgets customer c-404 instead of c-2."""
    for event in scenario["drive"]["events"]:
        if event["body"]["op"] == "forget":
            event["body"]["customer"] = "c-404"


def test_a_planted_divergence_is_reported(scenario):
    outcome = diverged(scenario, SEED, order_for_the_forgotten_customer_before_forgetting)
    tables = sorted(differing_tables(outcome))
    assert ["D1:DB/customers", "D1:DB/order_lines", "D1:DB/orders", "D1:DB/rejections"] == tables
