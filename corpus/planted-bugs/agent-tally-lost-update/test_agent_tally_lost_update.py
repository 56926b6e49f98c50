"""Corpus gate for the agent-tally-lost-update planted bug (issue 31, Agents SDK).

An Agent (the pinned Agents SDK: state, this.sql and a schedule over the object's alarm) accepts
amounts and folds them into its tally on a schedule. The fold marks the entries tallied, then
awaits a ledger call, then records the tally: a fault at the ledger call loses the update (the
SDK's schedule ends, or its retry finds nothing pending). It must be caught (VIOLATED on
every-tallied-entry-recorded, shrunk to one fault at the ledger call), its regression test must
fail on it and pass on the fixed twin (the tally written before the call), and the twin must
stay BOUNDED, all within a run cap; ``--exhaustive`` finds it too and runs every schedule of the twin.
"""

import json
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

#: The ledger call inside the scheduled fold ran, and the fold heard an ambiguous outcome.
AMBIGUOUS_AT_LEDGER = {"faults": [{"invocation": "DO:Tally/t-1/alarm.1#1", "ordinal": 1, "fault": "ambiguous"}], "turns": []}


def _rows(outcome, table):
    [rows] = [e["payload"]["rows"] for e in outcome["result"]["effects"] if (e["kind"], e["target"], e["op"]) == ("snapshot", "DO:Tally", f"t-1/{table}")]
    return rows


def test_buggy_agent_is_violated_with_one_fault_at_the_ledger_call():
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "every-tallied-entry-recorded" == verdict["violation"]["invariant"]
    [fault] = verdict["schedule"]["faults"]
    # The fold is the alarm's invocation; its ledger call is the point after the alarm's own.
    assert fault["invocation"].startswith("DO:Tally/t-1/alarm.") and 1 == fault["ordinal"], fault
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def _check_exhaustively(path):
    scenario = import_scenario(path)
    with create_platform(scenario) as platform:
        return check_scenario(scenario, platform, seed=seed_of(path), exhaustive=True, max_runs=RUNS_MAX, budget_ms=600_000)


def test_exhaustive_finds_the_lost_update_too_and_covers_every_schedule_of_the_twin():
    verdict = _check_exhaustively(BUGGY)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "every-tallied-entry-recorded" == verdict["violation"]["invariant"]
    [fault] = verdict["schedule"]["faults"]
    assert fault["invocation"].startswith("DO:Tally/t-1/alarm.") and 1 == fault["ordinal"], fault
    twin = _check_exhaustively(FIXED)
    assert "bounded" == twin["kind"], twin.get("cause") or twin.get("violation")
    assert twin["exhaustive"]["completed"], twin["exhaustive"]


def test_the_fault_at_the_ledger_leaves_both_entries_marked_and_untallied():
    outcome = replay_case(BUGGY, AMBIGUOUS_AT_LEDGER)
    assert "completed" == outcome["result"]["end"]["kind"]
    assert ["every-tallied-entry-recorded"] == [v["invariant"] for v in outcome["violations"]]
    assert [{"id": 1, "amount": 5, "tallied": 1}, {"id": 2, "amount": 7, "tallied": 1}] == _rows(outcome, "entries")
    assert [] == _rows(outcome, "tallies")
    # setState never ran: the SDK's state table holds nothing (initialState is not stored until a setState).
    assert [] == _rows(outcome, "cf_agents_state")


def test_fixed_twin_is_bounded():
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)


def test_fixed_twin_tallies_both_entries_despite_the_fault():
    outcome = replay_case(FIXED, AMBIGUOUS_AT_LEDGER)
    assert [] == outcome["violations"]
    assert [{"entry_id": 1, "amount": 5}, {"entry_id": 2, "amount": 7}] == _rows(outcome, "tallies")
    [state] = _rows(outcome, "cf_agents_state")
    assert {"total": 12} == json.loads(state["state"])
