"""A fixed expected list on real workerd: the shrunk trace keeps the event it names.

The consumer swallows a failed insert and acks, so an error on an order's insert loses it.
Removing that order's event would keep its key missing with no fault at all, a trace that is no
counterexample and a regression test that fails forever; the shrinker keeps the event and
the fault, and the regression test `eutaxy check` writes fails on the bug and passes on
the fixed consumer (which retries instead).
"""

from pathlib import Path

import pytest

from eutaxy.cloudflare import create_platform, expect_holds, load_scenario
from eutaxy.engine.check import check_scenario

FIXTURE = Path(__file__).resolve().parent / "returning"
BUGGY = FIXTURE / "lossy.sim.py"
FIXED = FIXTURE / "lossy_fixed.sim.py"

pytestmark = pytest.mark.usefixtures("toolchain")


def _run_regression_test(verdict, scenario_path):
    """What the written regression test does (the corpus gates run the written file itself)."""
    seed = verdict["provenance"]["seed"]
    expect_holds(str(scenario_path), schedule=verdict["schedule"], events=verdict["keptEvents"], seed=seed)


def test_the_shrink_keeps_the_named_event_and_its_regression_test_passes_on_the_fix():
    scenario = load_scenario(BUGGY)
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, seed="lossy", max_runs=60, budget_ms=600_000)
    assert "violated" == verdict["kind"], verdict.get("cause")
    [lost] = verdict["violation"]["keys"]
    assert ["msg-1", "msg-2"] == verdict["keptEvents"], "the event that names the lost key stays"
    [fault] = verdict["schedule"]["faults"]
    event = {'"o-1"': "msg-1", '"o-2"': "msg-2"}[lost]
    assert (f"{event}#1", "error") == (fault["invocation"], fault["fault"])
    with pytest.raises(AssertionError, match="both-orders-recorded"):
        _run_regression_test(verdict, BUGGY)
    _run_regression_test(verdict, FIXED)
