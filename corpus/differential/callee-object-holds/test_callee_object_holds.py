"""Differential gate for callee-object-holds: a callee's Durable Object classes, modelled and real, must agree.

The case runs fault-free once through Eutaxy's rpc drive, the inventory a callee hosted by each
call in the shop's isolate with its classes under qualified aliases (inventory.Hold,
inventory.Tally), and once on the raw side, where the inventory is a Worker of its own reached
through a real service binding, its STOCK_HOLDS and TALLY bound to the same classes the loaded
Worker exports. Every answer (a hold, the RangeError the object throws and the UnknownSku of its
own class, each crossing the inventory to the shop), both Workers' D1 rows and every object's
key-value and SQL rows must be the same: the objects of one namespace both Workers reach, under
the shop's name (DO:HOLDS), and the inventory's own (DO:inventory/TALLY). A second test plants a
divergence on the proxied side and requires the runner to report it, so this gate can fail.
"""

from agreement import agreed, raw_answers, raw_rows
from divergence import diverged, differing_tables

SEED = "callee-object-holds"


def test_proxied_and_raw_runs_agree(scenario):
    outcome = agreed(scenario, SEED)
    assert {
        # The hold reads the inventory's stock (5) and REGION through its own env, the seeded hold (1) from
        # its SQL; the id the inventory's binding makes for it is the one the shop's makes.
        "call-1#1": {"ok": True, "value": {"outcome": "reserved res-o-1 in eu, 2 left (one object: true)", "level": 2}},
        # Thrown in the object, caught and rethrown by the inventory: a RangeError at the shop, remote.
        "call-2#1": {"ok": True, "value": {"outcome": "RangeError: widget: 2 left in eu, not 3 (remote: true, code: undefined)", "level": 2}},
        "call-3#1": {"ok": True, "value": {"outcome": "reserved res-o-3 in eu, 0 left (one object: true)", "level": 0}},
        # The object's own error class crosses twice as an Error named in its message, without its code.
        "call-4#1": {"ok": True, "value": {"outcome": "Error: UnknownSku: gadget is not stocked (remote: true, code: undefined)", "level": 0}},
    } == raw_answers(outcome)
    # One namespace under the shop's name: the inventory's STOCK_HOLDS is an alias, never snapshotted apart.
    objects = sorted(snapshot["table"] for snapshot in outcome.raw["snapshots"] if snapshot["target"] == "DO:HOLDS")
    assert ["bolt", "bolt/holds", "gadget", "gadget/holds", "widget", "widget/holds"] == objects
    assert not [s for s in outcome.raw["snapshots"] if s["target"] == "DO:inventory/STOCK_HOLDS"]
    assert ["o-0", "o-1", "o-3"] == sorted(row["order_id"] for row in raw_rows(outcome, "DO:HOLDS", "widget/holds"))
    assert [] == raw_rows(outcome, "DO:HOLDS", "gadget/holds")
    assert [{"order_id": "o-00", "qty": 4, "region": "eu"}] == raw_rows(outcome, "DO:HOLDS", "bolt/holds")
    assert [{"key": "last", "value": "o-3"}] == raw_rows(outcome, "DO:HOLDS", "widget")
    # The inventory's own class, qualified: its tally object named by the inventory's REGION var.
    tally = {row["key"]: row["value"] for row in raw_rows(outcome, "DO:inventory/TALLY", "eu")}
    assert {"held": 2, "RangeError (remote: true)": 1, "Error (remote: true)": 1} == tally
    assert 4 == len(raw_rows(outcome, "DO:inventory/TALLY", "eu/outcomes"))
    assert ["res-o-1", "res-o-3"] == sorted(row["reservation_id"] for row in raw_rows(outcome, "D1:inventory/DB", "reservations"))
    assert [2, 2, 0, 0] == [row["level"] for row in sorted(raw_rows(outcome, "D1:DB", "orders"), key=lambda row: row["order_id"])]


def order_one_more(scenario):
    """As a buggy drive would: the proxied side's first order asks for one more than the call says."""
    scenario["drive"]["events"][0]["args"][2] += 1


def test_a_planted_divergence_is_reported(scenario):
    outcome = diverged(scenario, SEED, order_one_more)
    assert {"D1:DB/orders", "D1:inventory/DB/reservations", "DO:HOLDS/widget/holds"} <= set(differing_tables(outcome))
