"""Corpus gate for the background-lost planted bug.

The buggy intake, which answers 202 and leaves its D1 write to ctx.waitUntil,
must be caught (VIOLATED on every-order-recorded, shrunk to one fault and the
one order lost), and its fixed twin, which writes before answering, must stay
BOUNDED, both within a run cap and a generous budget. The seeds' own story, the
cut_off fault at the background point, is replayed on the buggy one. A planted
bug the checker misses fails CI.
"""

from pathlib import Path


from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case, replay_case

HERE = Path(__file__).resolve().parent
BUGGY = HERE / "background-lost.sim.py"
FIXED = HERE / "fixed" / "background-lost-fixed.sim.py"

#: A cap, so the verdict is the same on any machine (the bug is found in a few runs).
RUNS_MAX = 100

#: req-1's first attempt: the background read is ordinal 0, the response 1, the background point 2.
CUT_OFF = {"faults": [{"invocation": "req-1#1", "ordinal": 2, "fault": "cut_off"}], "turns": []}


def test_buggy_intake_is_violated_with_one_fault():
    """An accepted order that is never recorded is found, replayed and shrunk to one fault."""
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "every-order-recorded" == verdict["violation"]["invariant"]
    assert 1 == len(verdict["schedule"]["faults"])
    assert 1 == len(verdict["keptEvents"])
    # The regression test the user gets fails here and passes on the fixed twin.
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def test_cut_off_loses_the_write_after_the_2xx():
    """cut_off at the background point: the read in flight commits, the write never starts."""
    outcome = replay_case(BUGGY, CUT_OFF)
    assert ["every-order-recorded"] == [v["invariant"] for v in outcome["violations"]]
    effects = [e for e in outcome["result"]["effects"] if e["invocation"] == "req-1#1"]
    brief = [(e["target"], e["op"], e["kind"]) for e in effects]
    assert ("Http:/orders", "background", "fault") in brief
    assert ("D1:DB", "first", "result") in brief, "the read in flight committed"
    assert not any(e["op"] == "run" for e in effects), "the write never started"
    response = next(e for e in effects if e["op"] == "response" and e["kind"] == "result")
    assert 202 == response["payload"]["result"]["status"]
    assert not any(e["invocation"] == "req-1#2" for e in outcome["result"]["effects"]), "the caller got its 2xx"


def test_fixed_twin_is_bounded():
    """Writing before answering puts every failure in front of the caller, who resends."""
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)
