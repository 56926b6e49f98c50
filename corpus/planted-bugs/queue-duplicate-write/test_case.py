"""Corpus gate for the queue-duplicate-write planted bug.

The buggy consumer must be caught (VIOLATED on payment-recorded-once, shrunk to
a schedule with one fault) and its fixed twin must stay BOUNDED, both within a
run cap and a generous budget, so the verdict never depends on the machine's
speed. A planted bug the checker misses fails CI.
"""

from pathlib import Path

import pytest

from eutaxy.cloudflare import create_platform, load_scenario
from eutaxy.cloudflare.host import HostError, find_node
from eutaxy.engine.check import check_scenario

HERE = Path(__file__).resolve().parent

#: Enough runs for the seeded exploration to place a fault after the insert
#: (about one run in five does); a cap, so the verdict is the same on any machine.
MAX_RUNS = 100

#: Wall time only decides when to stop; this one never should before MAX_RUNS.
BUDGET_MS = 300_000


def _require_node() -> None:
    try:
        find_node(install=False)
    except HostError as error:
        # A corpus gate never skips: a planted bug the checker cannot run is a miss.
        pytest.fail(f"the pinned Node toolchain is not installed: {error}")


def _check(path: Path) -> dict:
    scenario = load_scenario(path)
    platform = create_platform(scenario)
    try:
        return check_scenario(
            scenario, platform, seed=path.name.removesuffix(".sim.py"), max_runs=MAX_RUNS, budget_ms=BUDGET_MS
        )
    finally:
        platform.close()


def test_buggy_consumer_is_violated_with_one_fault():
    """The duplicate insert after redelivery is found, replayed and shrunk to one fault."""
    _require_node()
    verdict = _check(HERE / "queue-duplicate-write.sim.py")
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "payment-recorded-once" == verdict["violation"]["invariant"]
    assert 1 == len(verdict["schedule"]["faults"])
    # The shrinker keeps only the message whose payment was duplicated.
    assert 1 == len(verdict["keptEvents"])


def test_fixed_twin_is_bounded():
    """The idempotent insert survives every explored schedule."""
    _require_node()
    verdict = _check(HERE / "fixed" / "queue-duplicate-write-fixed.sim.py")
    assert "bounded" == verdict["kind"], verdict.get("violation") or verdict.get("cause")
