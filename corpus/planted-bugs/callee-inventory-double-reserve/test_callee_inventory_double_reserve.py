"""Corpus gate for the callee-inventory-double-reserve planted bug.

The order Worker calls the inventory Worker, run for real behind its service binding (callee):
the buggy reserve() must be caught (VIOLATED on every-reservation-has-its-order, an invariant
over both Workers' D1 databases, shrunk to one fault) and its fixed twin, whose reserve() is
idempotent per order, must stay BOUNDED within a run cap and a generous budget, so the verdict
never depends on the machine's speed. The story itself, the reservation made and its answer
lost (the call's ambiguous outcome) and the order Worker's second call, is replayed on both.
"""

from pathlib import Path

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case, replay_case

HERE = Path(__file__).resolve().parent
BUGGY = HERE / "callee-inventory-double-reserve.sim.py"
FIXED = HERE / "fixed" / "callee-inventory-double-reserve-fixed.sim.py"

#: A cap, so the verdict is the same on any machine (the bug is found in a few runs).
RUNS_MAX = 100

#: o-1's reservation was written by the inventory Worker, and the answer to the order Worker lost.
ANSWER_LOST = {"faults": [{"invocation": "req-1#1", "ordinal": 0, "fault": "ambiguous"}], "turns": []}


def _reservations(outcome: dict, order: str) -> list[str]:
    rows = [e for e in outcome["result"]["effects"] if e["target"] == "D1:inventory/DB" and e["op"] == "reservations" and e["kind"] == "snapshot"]
    return sorted(row["reservation_id"] for row in rows[0]["payload"]["rows"] if row["order_id"] == order)


def test_buggy_inventory_is_violated_with_one_fault():
    """A second reservation for one order is found, replayed and shrunk to one fault."""
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "every-reservation-has-its-order" == verdict["violation"]["invariant"]
    assert 1 == len(verdict["schedule"]["faults"])
    # The regression test the user gets fails here and passes on the fixed twin.
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def test_answer_lost_and_second_call_reserve_twice():
    """The inventory reserved o-1 and the answer was lost: the order Worker's second call reserves again."""
    outcome = replay_case(BUGGY, ANSWER_LOST)
    assert "completed" == outcome["result"]["end"]["kind"]
    assert ["every-reservation-has-its-order"] == [v["invariant"] for v in outcome["violations"]]
    assert 2 == len(_reservations(outcome, "o-1"))
    # Each call hosted an invocation of the inventory Worker's own, its effects under it.
    hosted = [(i["invocation"], i["drive"], i["outcome"]) for i in outcome["result"]["invocations"] if i["drive"] == "callee"]
    assert [
        ("req-1#1/INVENTORY.reserve", "callee", "returned"),
        ("req-1#1/INVENTORY.reserve#2", "callee", "returned"),
        ("req-2#1/INVENTORY.reserve", "callee", "returned"),
    ] == hosted
    batches = [e["invocation"] for e in outcome["result"]["effects"] if e["target"] == "D1:inventory/DB" and e["kind"] == "result"]
    assert ["req-1#1/INVENTORY.reserve", "req-1#1/INVENTORY.reserve#2", "req-2#1/INVENTORY.reserve"] == batches


def test_fixed_twin_is_bounded():
    """With reserve() idempotent per order every second call answers the first reservation."""
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)


def test_fixed_twin_second_call_answers_the_first_reservation():
    """The same lost answer and second call: one reservation for o-1, the one the order holds."""
    outcome = replay_case(FIXED, ANSWER_LOST)
    assert [] == outcome["violations"]
    assert 1 == len(_reservations(outcome, "o-1"))
    orders = [e for e in outcome["result"]["effects"] if e["target"] == "D1:DB" and e["op"] == "orders" and e["kind"] == "snapshot"]
    held = {row["order_id"]: row["reservation_id"] for row in orders[0]["payload"]["rows"]}
    assert _reservations(outcome, "o-1") == [held["o-1"]]
