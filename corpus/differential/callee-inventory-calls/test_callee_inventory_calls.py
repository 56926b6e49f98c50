"""Differential gate for callee-inventory-calls: the callee model and a real service binding must agree.

The case runs fault-free once through Eutaxy's rpc drive, the inventory a callee hosted by each
call in the shop's isolate, and once on the raw side, where the shop's entrypoint is constructed
on the real bindings and reaches the inventory, a Worker of its own in the same Miniflare
instance, through a real service binding. Every answer (the reservations, the RangeError the
inventory throws and the UnknownSku of its own class, as the shop records
each: name, message, remote and its code) and both Workers' rows must be the same. A second test
plants a divergence on the proxied side and requires the runner to report it, so this gate can fail.
"""

from agreement import agreed, raw_answers, raw_rows
from divergence import diverged, differing_tables

SEED = "callee-inventory-calls"


def test_proxied_and_raw_runs_agree(scenario):
    outcome = agreed(scenario, SEED)
    answers = raw_answers(outcome)
    assert {"ok": True, "value": {"outcome": "reserved res-o-1, 1 left", "level": 1}} == answers["call-1#1"]
    assert {"ok": True, "value": {"outcome": "RangeError: widget: 1 left, not 2 (remote: true, code: undefined)", "level": 1}} == answers["call-2#1"]
    assert {"ok": True, "value": {"outcome": "reserved res-o-3, 0 left", "level": 0}} == answers["call-3#1"]
    # An error class of the callee's own crosses as an Error named in its message, without its code.
    assert {"ok": True, "value": {"outcome": "Error: UnknownSku: gadget is not stocked (remote: true, code: undefined)", "level": 0}} == answers["call-4#1"]
    assert ["res-o-1", "res-o-3"] == sorted(row["reservation_id"] for row in raw_rows(outcome, "D1:inventory/DB", "reservations"))
    assert 4 == len(raw_rows(outcome, "D1:DB", "orders"))


def order_one_more(scenario):
    """As a buggy drive would: the proxied side's first order asks for one more than the call says."""
    scenario["drive"]["events"][0]["args"][2] += 1


def test_a_planted_divergence_is_reported(scenario):
    outcome = diverged(scenario, SEED, order_one_more)
    assert {"D1:DB/orders", "D1:inventory/DB/reservations"} <= set(differing_tables(outcome))
