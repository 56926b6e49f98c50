"""Corpus gate for the upload-quota-overshoot planted bug (aggregate over D1 state).

Two concurrent 2 GiB uploads over the http drive into a catalogue holding 2 of its 5 GiB,
no faults, maxConcurrentInvocations 2. The buggy Worker must come out VIOLATED on
under-quota, the sum of the documents' sizes at 6 GiB; the fixed twin (the quota check
inside the insert) must stay BOUNDED. Runs are capped and the budget generous, so the
verdict never depends on the machine's speed. A corpus gate never skips.
"""

from pathlib import Path

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case

HERE = Path(__file__).resolve().parent
GIB = 1024**3

#: Some seeded runs interleave both sums before either insert; a cap, so the verdict is the
#: same on any machine.
RUNS_MAX = 60


def test_two_concurrent_uploads_overshoot_the_quota():
    """The overshoot is found with no fault, and the violation names the sum and the rows."""
    verdict = check_case(HERE / "upload-quota-overshoot.sim.py", max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    violation = verdict["violation"]
    assert "under-quota" == violation["invariant"] and "aggregate" == violation["invariantKind"]
    assert (
        f"under-quota: the sum of size over D1:DB table documents is {6 * GIB}, which breaks lte {5 * GIB}"
        == violation["message"]
    )
    assert [2 * GIB] * 3 == [row["size"] for row in violation["rows"]]
    assert [] == verdict["schedule"]["faults"]
    assert verdict["schedule"]["turns"], "the interleaving is recorded as turn picks"
    assert ["req-1", "req-2"] == verdict["keptEvents"]
    # Both sums came before either insert.
    statements = [(e["invocation"], e["payload"]["statement"]) for e in verdict["trace"] if e["target"] == "D1:DB" and e["kind"] == "result"]
    reads = [position for position, (_, kind) in enumerate(statements) if kind == "read"]
    writes = [position for position, (_, kind) in enumerate(statements) if kind == "write"]
    assert 2 == len(reads) == len(writes) and max(reads) < min(writes), statements
    # The regression test the user gets fails here and passes on the fixed twin.
    assert_regression_test_catches(
        verdict, HERE / "upload-quota-overshoot.sim.py", HERE / "fixed" / "upload-quota-overshoot-fixed.sim.py"
    )


def test_fixed_twin_is_bounded():
    """The insert that checks the quota itself never overshoots it."""
    verdict = check_case(HERE / "fixed" / "upload-quota-overshoot-fixed.sim.py", max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)
    provenance = verdict["provenance"]
    assert ["maxRuns"] == provenance["boundsReached"] or (provenance["completed"] and [] == provenance["boundsReached"])
