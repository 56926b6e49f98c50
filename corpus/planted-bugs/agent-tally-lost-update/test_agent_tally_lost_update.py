"""Corpus gate for the agent-tally-lost-update planted bug (issue 31, Agents SDK, work after the answer).

An Agent (the pinned Agents SDK: state, this.sql and a schedule over the object's alarm) accepts
amounts, answers at once and credits each to a ledger and its running total in work after the
answer (ctx.waitUntil), as DO:Tally/t-1/after. The credit reads the total, awaits the ledger,
then writes what it read plus its amount: in a concurrent run the second request enters the
Agent while the first's credit awaits the ledger, and one update is lost. It must be caught
(VIOLATED on total-counts-every-entry by the order of turns alone, no fault), its regression
test must fail on it and pass on the fixed twin (the total read and written after the ledger
call, with no await between), and the twin must stay BOUNDED, all within a run cap;
``--exhaustive`` finds it too and runs every schedule of the twin.

The enumeration's count on the twin, closed form: req-1's start comes first. Then req-1's
call into the Agent (which opens its credit's ledger call, handed to the Agent's work at the
answer) and that ledger call interleave with req-2's start, call and ledger call: C(5, 2) = 10
orders. The work starts with no decision, and the schedule's alarm, an hour on, starts once
nothing else can move (one option). The Agents SDK reads the clock and randomness inside the
calls (``more``), so none of those turns commutes with another: the reduction stays on and
every order runs once, 10 schedules.
"""

import json
from math import comb
from pathlib import Path

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case, replay_case, seed_of

from eutaxy.cloudflare import create_platform
from eutaxy.engine.check import check_scenario
from eutaxy.engine.scenario_file import import_scenario

HERE = Path(__file__).resolve().parent
BUGGY = HERE / "agent-tally-lost-update.sim.py"
FIXED = HERE / "fixed" / "agent-tally-lost-update-fixed.sim.py"

#: A cap, so the verdict is the same on any machine.
RUNS_MAX = 60

#: req-1 enters (its credit reads 0 and parks at the ledger); req-2 starts and enters while the
#: credit waits (its credit reads 0 too); then both ledger calls, each credit writing what it read.
BOTH_READ_FIRST = {"faults": [], "turns": [0, 0, 1, 1, 0, 0]}

#: Every order of the twin's turns (see the module docstring).
ALL_ORDERS = comb(5, 2)


def _rows(outcome, table):
    [rows] = [e["payload"]["rows"] for e in outcome["result"]["effects"] if (e["kind"], e["target"], e["op"]) == ("snapshot", "DO:Tally", f"t-1/{table}")]
    return rows


def _assert_lost_by_the_order_of_turns(verdict):
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "total-counts-every-entry" == verdict["violation"]["invariant"]
    assert [] == verdict["schedule"]["faults"]
    assert any(verdict["schedule"]["turns"]), verdict["schedule"]


def test_buggy_agent_is_violated_by_the_order_of_turns_alone():
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    _assert_lost_by_the_order_of_turns(verdict)
    assert 2 == len(verdict["keptEvents"])
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def _check_exhaustively(path):
    scenario = import_scenario(path)
    with create_platform(scenario) as platform:
        return check_scenario(scenario, platform, seed=seed_of(path), exhaustive=True, max_runs=RUNS_MAX, budget_ms=600_000)


def test_exhaustive_finds_the_lost_update_too_and_runs_every_order_of_the_twin():
    _assert_lost_by_the_order_of_turns(_check_exhaustively(BUGGY))
    twin = _check_exhaustively(FIXED)
    assert "bounded" == twin["kind"], twin.get("cause") or twin.get("violation")
    # Every turn did more than its effect: every order once, the reduction on.
    assert {"completed": True, "schedules": ALL_ORDERS, "reduction": True} == twin["exhaustive"]


def test_both_credits_read_before_either_writes_and_the_total_counts_one():
    outcome = replay_case(BUGGY, BOTH_READ_FIRST)
    assert "completed" == outcome["result"]["end"]["kind"]
    assert ["total-counts-every-entry"] == [v["invariant"] for v in outcome["violations"]]
    credits = [(e["invocation"], e["ordinal"]) for e in outcome["result"]["effects"] if (e["target"], e["kind"]) == ("Fetch:ledger", "call")]
    # Both ledger calls are the Agent's work after its answers, not the requests'.
    assert [("DO:Tally/t-1/after", 0), ("DO:Tally/t-1/after", 1)] == credits
    assert [{"id": 1, "amount": 5}, {"id": 2, "amount": 7}] == _rows(outcome, "entries")
    # Each credit wrote from the 0 both read: req-2's, the last, wins (0 + 7).
    assert [{"name": "all", "total": 7}] == _rows(outcome, "totals")
    [state] = _rows(outcome, "cf_agents_state")
    assert {"total": 7} == json.loads(state["state"])


def test_fixed_twin_is_bounded():
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)


def test_fixed_twin_counts_both_in_the_same_order():
    outcome = replay_case(FIXED, BOTH_READ_FIRST)
    assert [] == outcome["violations"]
    assert [{"name": "all", "total": 12}] == _rows(outcome, "totals")
    # The schedule's report, an hour on, saw the whole total in the Agent's state.
    assert [{"id": 1, "total": 12}, {"id": 2, "total": 12}] == _rows(outcome, "reports")
