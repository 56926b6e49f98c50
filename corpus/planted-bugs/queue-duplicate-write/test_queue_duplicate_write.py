"""Corpus gate for the queue-duplicate-write planted bug.

The buggy consumer must be caught (VIOLATED on payment-recorded-once, shrunk to
a schedule with one fault) and its fixed twin must stay BOUNDED, both within a
run cap and a generous budget, so the verdict never depends on the machine's
speed. A planted bug the checker misses fails CI.
"""

from pathlib import Path

from eutaxy.core.canonical import to_json
from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case

HERE = Path(__file__).resolve().parent

#: Enough runs for the seeded exploration to place a fault after the insert
#: (about one run in five does); a cap, so the verdict is the same on any machine.
RUNS_MAX = 100


def test_buggy_consumer_is_violated_with_one_fault():
    """The duplicate insert after redelivery is found, replayed and shrunk to one fault."""
    verdict = check_case(HERE / "queue-duplicate-write.sim.py", max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "payment-recorded-once" == verdict["violation"]["invariant"]
    assert 1 == len(verdict["schedule"]["faults"])
    # The shrinker keeps only the message whose payment was duplicated.
    assert 1 == len(verdict["keptEvents"])
    # The regression test the user gets fails here and passes on the fixed twin.
    assert_regression_test_catches(verdict, HERE / "queue-duplicate-write.sim.py", HERE / "fixed" / "queue-duplicate-write-fixed.sim.py")


def test_fixed_twin_is_bounded():
    """The idempotent insert survives every explored schedule."""
    verdict = check_case(HERE / "fixed" / "queue-duplicate-write-fixed.sim.py", max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)


def test_the_wrangler_toml_twin_gives_the_same_verdict():
    """The same Worker configured by wrangler.toml, checked with the JSONC scenario's seed, gives the same bytes."""
    from_jsonc = check_case(HERE / "queue-duplicate-write.sim.py", max_runs=RUNS_MAX)
    from_toml = check_case(HERE / "queue-duplicate-write-toml.sim.py", max_runs=RUNS_MAX, seed="queue-duplicate-write")
    assert "violated" == from_toml["kind"], from_toml.get("cause")
    assert _comparable(from_jsonc) == _comparable(from_toml)


def _comparable(verdict: dict) -> str:
    """The verdict's canonical JSON without what differs between any two checks (wall time, timings)."""
    provenance = {key: value for key, value in verdict["provenance"].items() if key not in ("elapsedMs", "startedAt", "timing")}
    return to_json({**verdict, "provenance": provenance})
