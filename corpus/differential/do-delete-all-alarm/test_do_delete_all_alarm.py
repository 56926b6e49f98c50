"""Differential gate for do-delete-all-alarm: deleteAll() and the alarm, the model against workerd.

The case runs fault-free once through Eutaxy's Durable Object proxy, whose alarms fire in
virtual time, and once with the handler on the raw namespace in the same Miniflare instance,
where workerd's own deleteAll() decides whether the alarm survives (its compatibility flag
delete_all_deletes_alarm, on from 2026-02-24). Every cart's key-value rows and tables and the
D1 audit table must be the same, at the Worker's date (the alarm deleted) and with
delete_all_preserves_alarm (the alarm kept). A planted divergence empties the carts without
deleteAll() on the proxied side, as a model that kept the alarm would, and the runner must
report it.
"""

from agreement import agreed, raw_rows
from divergence import differing_tables, diverged

SEED = "do-delete-all-alarm"


def test_delete_all_deletes_the_alarm_at_the_workers_date_on_both_sides(scenario):
    outcome = agreed(scenario, SEED)
    # The case exercises what it says, on workerd's side: the emptied carts' alarms are gone.
    assert [{"key": "alarmAfterClear", "value": False}] == raw_rows(outcome, "DO:CARTS", "c1")
    assert [{"cart": "c2"}] == raw_rows(outcome, "D1:DB", "audit")


def test_with_delete_all_preserves_alarm_the_alarm_survives_on_both_sides(scenario):
    preserving = {**scenario, "worker": {**scenario["worker"], "config": "./wrangler-preserves.jsonc"}}
    outcome = agreed(preserving, SEED)
    assert {"key": "alarmAfterClear", "value": True} in raw_rows(outcome, "DO:CARTS", "c1")
    assert ["c1", "c2", "c3"] == sorted(row["cart"] for row in raw_rows(outcome, "D1:DB", "audit"))


def clear_without_delete_all(scenario):
    """As a model whose deleteAll() left the alarm set would: the proxied side's carts keep their alarms."""
    for event in scenario["drive"]["events"]:
        if event["body"]["op"] == "arm-then-clear":
            event["body"]["op"] = "arm"


def test_a_planted_divergence_is_reported(scenario):
    outcome = diverged(scenario, SEED, clear_without_delete_all)
    tables = sorted(differing_tables(outcome))
    assert ["D1:DB/audit", "DO:CARTS/c1", "DO:CARTS/c1/expiries", "DO:CARTS/c3", "DO:CARTS/c3/expiries"] == tables, outcome.differences
