"""Corpus gate for the queue-batch-of-one planted bug: a shortcut for a batch of one message.

The consumer takes Cloudflare's default batch size, so with every message waiting the four
charges come in one invocation and its batch path skips the duplicate order. Only a short
batch (maxShortBatches 1) leaves the duplicate alone, where the shortcut charges its order
again. The buggy consumer must be caught (VIOLATED on order-charged-once) with a shrunk
trace that holds only what is needed: the two messages for the order and a first delivery
of one message, no fault. The same scenario without short batches is BOUNDED, the fixed
twin stays BOUNDED, and the regression test a user gets fails on the bug and passes on the
twin.
"""

from pathlib import Path

from planted import BUDGET_MS, assert_bounded_with_evidence, assert_regression_test_catches, check_case, seed_of

from eutaxy.cloudflare import create_platform
from eutaxy.engine.check import check_scenario
from eutaxy.engine.scenario_file import import_scenario

HERE = Path(__file__).resolve().parent
BUGGY = HERE / "queue-batch-of-one.sim.py"
FIXED = HERE / "fixed" / "queue-batch-of-one-fixed.sim.py"

#: A run cap, so the verdict is the same on any machine (a first delivery of three of the
#: four messages, a quarter of the seeded batch draws, shows the bug).
RUNS_MAX = 100


def test_a_lone_duplicate_is_charged_twice():
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "order-charged-once" == verdict["violation"]["invariant"]
    # The two messages for order o-1, each delivered alone: the first by a short batch, the
    # second because it is the only one left.
    assert ["msg-1", "msg-4"] == verdict["keptEvents"]
    assert {"faults": [], "turns": [], "batches": [{"invocation": "msg-1#1", "size": 1}]} == verdict["schedule"]
    writes = [e for e in verdict["trace"] if e["target"] == "D1:DB" and e["kind"] == "result"]
    assert [("msg-1#1", "o-1"), ("msg-4#1", "o-1")] == [(e["invocation"], e["payload"]["args"]["params"][1]) for e in writes]
    # What the short batch changed: with the platform's batch the two messages come together and one charge is made.
    assert "batches" == verdict["faultFree"]["changed"]
    assert [] == verdict["faultFree"]["violations"]
    # Runs whose one short batch was spent had later deliveries of several messages.
    assert "maxShortBatches" in verdict["provenance"]["boundsReached"]
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def test_without_short_batches_the_bug_stays_hidden():
    """Every delivery taking every waiting message: the batch path alone runs, BOUNDED."""
    scenario = import_scenario(BUGGY)
    scenario = {**scenario, "bounds": {**scenario["bounds"], "maxShortBatches": 0}}
    platform = create_platform(scenario)
    try:
        verdict = check_scenario(scenario, platform, seed=seed_of(BUGGY), max_runs=RUNS_MAX, budget_ms=BUDGET_MS)
    finally:
        platform.close()
    assert "bounded" == verdict["kind"], verdict.get("violation") or verdict.get("cause")
    assert "maxShortBatches" not in verdict["provenance"]["bounds"]


def test_the_fixed_twin_is_bounded():
    """Checking the order in every batch charges each order once, however the messages are grouped."""
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)
    assert "maxShortBatches" in verdict["provenance"]["boundsReached"]
