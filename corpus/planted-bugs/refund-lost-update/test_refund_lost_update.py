"""Corpus gate for the refund-lost-update planted bug (refines with state staleness).

Two concurrent partial refunds of one order over the http drive, no faults,
maxConcurrentInvocations 2. The buggy Worker must come out VIOLATED on
refund-follows-decision, the report naming both requests, the stale read of o-1
and the write that made it stale; the fixed twin (a conditional write, re-read
and retried) must stay BOUNDED. Runs are capped and the budget generous, so the
verdict never depends on the machine's speed. A corpus gate never skips.
"""

from pathlib import Path


from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case

HERE = Path(__file__).resolve().parent

#: About one seeded run in four interleaves both reads before either write; a cap,
#: so the verdict is the same on any machine.
RUNS_MAX = 60


def test_buggy_refunds_are_violated_naming_the_stale_read():
    """The lost update is found with no fault, and the message names the stale read and the write."""
    verdict = check_case(HERE / "refund-lost-update.sim.py", max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    violation = verdict["violation"]
    assert "refund-follows-decision" == violation["invariant"]
    assert ['"o-1"'] == violation["keys"]
    assert [] == verdict["schedule"]["faults"]
    assert verdict["schedule"]["turns"], "the interleaving is recorded as turn picks"
    assert ["req-1", "req-2"] == verdict["keptEvents"]
    message = violation["message"]
    assert "a read of \"o-1\"" in message and "lost update" in message, message
    assert "req-1#1" in message and "req-2#1" in message, message
    # The effects named: the stale read, its decision, the write that made it stale, the stale write.
    trace = verdict["trace"]
    named = [trace[index] for index in violation["effects"]]
    assert ["first", "decide", "run", "run"] == [effect["op"] for effect in named]
    stale_read, decision, other_write, stale_write = named
    assert stale_read["invocation"] == decision["invocation"] == stale_write["invocation"]
    assert other_write["invocation"] != stale_write["invocation"]
    assert "o-1" == stale_read["payload"]["args"]["params"][0] == other_write["payload"]["args"]["params"][0]
    # The regression test the user gets fails here and passes on the fixed twin.
    assert_regression_test_catches(verdict, HERE / "refund-lost-update.sim.py", HERE / "fixed" / "refund-lost-update-fixed.sim.py")


def test_fixed_twin_is_bounded():
    """The conditional write never commits on a stale read."""
    verdict = check_case(HERE / "fixed" / "refund-lost-update-fixed.sim.py", max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)
    # The budget never stopped it: it made every one of the RUNS_MAX runs or ran every schedule.
    provenance = verdict["provenance"]
    assert ["maxRuns"] == provenance["boundsReached"] or (provenance["completed"] and [] == provenance["boundsReached"])
