"""Differential gate for do-transaction-alarm: alarms inside transactions, the model against workerd.

The case runs fault-free once through Eutaxy's Durable Object proxy, whose alarms fire in
virtual time, and once with the handler on the raw namespace in the same Miniflare instance,
where workerd's own transactions decide. An alarm set inside transaction() or
transactionSync() whose closure throws or calls rollback() never fires and getAlarm() after it
says so; every room's key-value rows and tables and the D1 audit table must be the same. A
planted divergence lets the abandoned holds commit on the proxied side, as a model that kept
a rolled-back alarm would, and the runner must report it.
"""

from agreement import agreed, raw_rows
from divergence import differing_tables, diverged

SEED = "do-transaction-alarm"


def test_proxied_and_raw_transactions_agree(scenario):
    outcome = agreed(scenario, SEED)
    # The case exercises what it says, on workerd's side: the abandoned holds' alarms are gone,
    # the earlier alarm survived, the committed ones fired.
    for room in ("r1", "r2", "r3", "r4"):
        assert {"key": "after", "value": "none"} in raw_rows(outcome, "DO:ROOMS", room), room
    assert {"key": "seenInside", "value": True} in raw_rows(outcome, "DO:ROOMS", "r1")
    assert {"key": "after", "value": "earlier"} in raw_rows(outcome, "DO:ROOMS", "r5")
    assert ["r5", "r6", "r7"] == sorted(row["room"] for row in raw_rows(outcome, "D1:DB", "audit"))


def commit_every_hold(scenario):
    """As a model whose rollback kept the alarm would: the proxied side's holds all commit."""
    for event in scenario["drive"]["events"]:
        event["body"]["abandon"] = False


def test_a_planted_divergence_is_reported(scenario):
    outcome = diverged(scenario, SEED, commit_every_hold)
    tables = set(differing_tables(outcome))
    assert {"D1:DB/audit", "DO:ROOMS/r1", "DO:ROOMS/r2", "DO:ROOMS/r3", "DO:ROOMS/r4"} <= tables, outcome.differences
