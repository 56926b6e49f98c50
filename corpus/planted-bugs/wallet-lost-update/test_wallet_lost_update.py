"""Corpus gate for the wallet-lost-update planted bug (issue 31, calls entering one Durable Object concurrently).

Two spends enter one wallet object concurrently. The buggy wallet reads its balance, awaits an
outbound fetch (its input gate open, so the other spend enters there), then writes the balance:
both spends are recorded from one balance. It must be caught with no fault, by the order of the
turns alone (VIOLATED on no-overspend), seeded and with ``--exhaustive``; its regression test
must fail on it and pass on the fixed twin (the balance debited before the fetch, with only
storage operations, which hold the gate, between the read and the write), which stays BOUNDED.

The enumeration's count on the twin with no faults, closed form: req-1's start comes first;
each spend is then its stub call and, when it was not refused, its fetch (parked inside the
object), and req-2 has its start before its call. The spend whose call enters first debits the
balance and fetches; the other finds too little and answers without a fetch. req-1 first:
req-1's call and fetch interleave with req-2's start and call, req-1's call before req-2's:
C(4, 2) - 1 = 5 orders. req-2 first: req-1's call after req-2's among req-2's start, call and
fetch: 2 orders. None of the turns commute (after a start every turn runs the wallet's code:
a call into it, or a fetch parked inside a call of it), so the reduction, on, runs all 7.
"""

from math import comb
from pathlib import Path

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case, replay_case, seed_of

from eutaxy.cloudflare import create_platform
from eutaxy.engine.check import check_scenario
from eutaxy.engine.scenario_file import import_scenario

HERE = Path(__file__).resolve().parent
BUGGY = HERE / "wallet-lost-update.sim.py"
FIXED = HERE / "fixed" / "wallet-lost-update-fixed.sim.py"

#: A cap, so the verdict is the same on any machine.
RUNS_MAX = 120

#: req-1 enters and parks at its fetch; req-2 starts, enters (the gate is open) and reads the
#: same balance; then both fetches and both writes.
BOTH_ENTER_FIRST = {"faults": [], "turns": [0, 0, 1, 1, 0, 0]}

#: Every order of the twin's turns with no faults (see the module docstring).
ALL_ORDERS = (comb(4, 2) - 1) + 2


def _rows(outcome, table):
    [rows] = [e["payload"]["rows"] for e in outcome["result"]["effects"] if (e["kind"], e["target"], e["op"]) == ("snapshot", "DO:WALLET", table)]
    return rows


def _check(path, *, faults=None, **options):
    """check_case with ``exhaustive`` (and ``maxFaultsPerRun`` set to ``faults`` when given)."""
    scenario = import_scenario(path)
    if faults is not None:
        scenario["bounds"] = {**scenario["bounds"], "maxFaultsPerRun": faults}
    with create_platform(scenario) as platform:
        return check_scenario(scenario, platform, seed=seed_of(path), max_runs=RUNS_MAX, budget_ms=600_000, **options)


def _assert_no_fault_both_calls_entered_before_a_fetch(verdict):
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "no-overspend" == verdict["violation"]["invariant"]
    assert [] == verdict["schedule"]["faults"]
    assert any(verdict["schedule"]["turns"]), verdict["schedule"]


def test_buggy_wallet_is_violated_by_the_order_of_turns_alone():
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    _assert_no_fault_both_calls_entered_before_a_fetch(verdict)
    assert 2 == len(verdict["keptEvents"])
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def test_exhaustive_finds_the_buggy_wallet_too():
    verdict = _check(BUGGY, exhaustive=True)
    _assert_no_fault_both_calls_entered_before_a_fetch(verdict)


def test_the_second_spend_entering_at_the_first_ones_fetch_spends_13_of_10():
    outcome = replay_case(BUGGY, BOTH_ENTER_FIRST)
    assert "completed" == outcome["result"]["end"]["kind"]
    assert ["no-overspend"] == [v["invariant"] for v in outcome["violations"]]
    assert [{"amount": 6, "order_id": "o-1"}, {"amount": 7, "order_id": "o-2"}] == _rows(outcome, "alice/spends")
    # Each write was computed from the balance both read: req-2's, the last, wins (10 - 7).
    assert [{"key": "balance", "value": 3}] == _rows(outcome, "alice")


def test_fixed_twin_is_bounded():
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)


def test_fixed_twin_refuses_the_second_spend_in_the_same_order():
    outcome = replay_case(FIXED, BOTH_ENTER_FIRST)
    assert [] == outcome["violations"]
    assert [{"amount": 6, "order_id": "o-1"}] == _rows(outcome, "alice/spends")
    assert [{"key": "balance", "value": 4}] == _rows(outcome, "alice")


def test_the_enumeration_runs_every_order_of_the_twin_once():
    verdict = _check(FIXED, faults=0, exhaustive=True)
    assert "bounded" == verdict["kind"], verdict.get("cause") or verdict.get("violation")
    assert {"completed": True, "schedules": ALL_ORDERS, "reduction": True} == verdict["exhaustive"]
