"""refines end to end on workerd: the planted lost update's interleaving, replayed.

The corpus gate (corpus/planted-bugs/refund-lost-update/test_refund_lost_update.py) checks the
verdicts; this replays one interleaving on both twins: both reads before either
write. The buggy Worker breaks refund-follows-decision, naming the stale read of
o-1 and the other request's write; the fixed twin's conditional write fails,
re-reads and commits on fresh state, so the same picks hold.
"""

from pathlib import Path

import pytest

from eutaxy.cloudflare import create_platform, expect_holds, load_scenario
from eutaxy.engine.check import replay_scenario

CASE = Path(__file__).resolve().parents[3] / "corpus" / "planted-bugs" / "refund-lost-update"
BUGGY = CASE / "refund-lost-update.sim.py"
FIXED = CASE / "fixed" / "refund-lost-update-fixed.sim.py"

#: start req-1, start req-2, req-1 reads, req-2 reads, then the writes (option 0 onwards).
BOTH_READS_FIRST = {"faults": [], "turns": [0, 1, 0, 0]}


pytestmark = pytest.mark.usefixtures("toolchain")


def test_both_reads_first_loses_the_first_refund():
    """The stale read is named: req-2 wrote on a read req-1's write had made stale."""
    scenario = load_scenario(BUGGY)
    with create_platform(scenario) as platform:
        outcome = replay_scenario(scenario, platform, BOTH_READS_FIRST, seed="refund-lost-update")
    effects = outcome["result"]["effects"]
    snapshot = [e for e in effects if e["kind"] == "snapshot"][0]
    assert [400] == [row["refunded_cents"] for row in snapshot["payload"]["rows"]]
    decisions = [e for e in effects if e["target"] == "Core:decideRefund"]
    assert [["req-1#1", 600], ["req-2#1", 400]] == [[e["invocation"], e["payload"]["result"]["refunded"]] for e in decisions]
    (violation,) = outcome["violations"]
    assert "refund-follows-decision" == violation["invariant"]
    assert (
        'refund-follows-decision: D1:DB run (req-2#1 effect #1) carries out a decideRefund decision that rested on '
        'a read of "o-1" (req-2#1 effect #0), and req-1#1 effect #1 changed "o-1" before that effect committed '
        "(a lost update)"
    ) == violation["message"]


def test_the_fixed_twin_holds_under_the_same_picks():
    """expect_holds (what a regression test calls) passes on the conditional write."""
    expect_holds(FIXED, schedule=BOTH_READS_FIRST, seed="refund-lost-update-fixed")


def test_the_buggy_twin_fails_its_regression_test():
    """expect_holds raises while the bug is there."""
    with pytest.raises(AssertionError, match="lost update"):
        expect_holds(BUGGY, schedule=BOTH_READS_FIRST, seed="refund-lost-update")
