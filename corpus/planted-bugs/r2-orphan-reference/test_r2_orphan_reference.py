"""Corpus gate for the r2-orphan-reference planted bug (an orphan upload across D1 and R2).

The buggy endpoint must be caught (VIOLATED on every-file-has-its-body, shrunk to
one fault and the one upload it broke) and its fixed twin, which writes the body
before the row naming it, must stay BOUNDED, both within a run cap and a generous
budget, so the verdict never depends on the machine's speed. The story itself, a
crash before the put, is replayed on both. A planted bug the checker misses fails CI.
"""

from pathlib import Path

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case, replay_case

HERE = Path(__file__).resolve().parent
BUGGY = HERE / "r2-orphan-reference.sim.py"
FIXED = HERE / "fixed" / "r2-orphan-reference-fixed.sim.py"

#: A cap, so the verdict is the same on any machine (the bug is found in a few runs).
RUNS_MAX = 100

#: The invocation of the first upload dies at its second effect: the put, after the insert.
CRASH_BEFORE_PUT = {"faults": [{"invocation": "req-1#1", "ordinal": 1, "fault": "crash_before"}], "turns": []}


def test_buggy_upload_is_violated_with_one_fault():
    """The row naming a body never written is found, replayed and shrunk to one fault."""
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "every-file-has-its-body" == verdict["violation"]["invariant"]
    assert 1 == len(verdict["schedule"]["faults"])
    assert 1 == len(verdict["keptEvents"])
    # The regression test the user gets fails here and passes on the fixed twin.
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def test_a_crash_before_the_put_leaves_a_row_naming_nothing():
    """The D1 row for f-1 committed; its object was never written; the seeded f-0 is whole."""
    outcome = replay_case(BUGGY, CRASH_BEFORE_PUT)
    assert "completed" == outcome["result"]["end"]["kind"]
    assert ["every-file-has-its-body"] == [v["invariant"] for v in outcome["violations"]]
    assert ['"files/f-1"'] == outcome["violations"][0]["keys"]


def test_fixed_twin_is_bounded():
    """Body first, then the row: no fault leaves a row naming a missing object."""
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)


def test_fixed_twin_crash_leaves_an_unnamed_object_only():
    """The same crash on the twin (now before the insert): the object exists, no row names it, nothing dangles."""
    outcome = replay_case(FIXED, CRASH_BEFORE_PUT)
    assert [] == outcome["violations"]
    snapshot = next(e for e in outcome["result"]["effects"] if e["kind"] == "snapshot" and e["target"] == "R2:FILES")
    assert ["files/f-0", "files/f-1", "files/f-2"] == sorted(row["key"] for row in snapshot["payload"]["rows"])
