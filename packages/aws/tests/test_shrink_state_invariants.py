"""Shrinks stay true for state invariants (the engine's shrinker, on the AWS platform).

The buggy handler swallows an error on the deposit, so the deposit is lost and the later
withdrawal overdraws. Dropping the deposit gives the same overdrawn row with no fault at
all, so a shrinker that accepted it would report a trace that breaks the invariant on any
handler; the shrinker must keep the deposit: the shrunk trace keeps both events and the
fault, and the regression test written from it passes on the fixed handler (which lets the
error raise, so the deposit is received again) while it fails on the buggy one.
"""

import os

from eutaxy.aws import create_platform, expect_holds, load_scenario
from eutaxy.engine.check import check_scenario

import pytest

SCENARIOS = os.path.join(os.path.dirname(__file__), "scenarios")


def test_the_shrunk_overdraft_keeps_the_deposit_and_its_regression_test_passes_once_fixed():
    scenario = load_scenario(os.path.join(SCENARIOS, "balances.sim.py"))
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, seed="balances", max_runs=100, budget_ms=600_000)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "no-overdraft" == verdict["violation"]["invariant"]
    assert ["msg-1", "msg-2"] == verdict["keptEvents"]
    assert ["msg-1#1"] == [fault["invocation"] for fault in verdict["schedule"]["faults"]]
    seed = verdict["provenance"]["seed"]
    with pytest.raises(AssertionError, match="no-overdraft"):
        expect_holds(os.path.join(SCENARIOS, "balances.sim.py"), schedule=verdict["schedule"], events=verdict["keptEvents"], seed=seed)
    replayed = expect_holds(
        os.path.join(SCENARIOS, "balances_fixed.sim.py"), schedule=verdict["schedule"], events=verdict["keptEvents"], seed=seed
    )
    assert [] == replayed["violations"]
