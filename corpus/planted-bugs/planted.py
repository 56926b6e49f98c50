"""What every planted-bug gate does: check a scenario file, or replay one schedule on it.

The platform comes from the scenario (``eutaxy.<platform>``), the seed from the file's
name, and runs are capped with a generous budget, so a verdict never depends on the
machine's speed. Nothing here skips: a gate that cannot run fails, because a planted bug
the checker cannot run is a miss.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from eutaxy.engine.check import check_scenario, replay_scenario
from eutaxy.engine.scenario_file import import_scenario

#: Wall time only decides when to stop; a gate's run cap always comes first.
BUDGET_MS = 600_000


def _open(path: str | Path):
    scenario = import_scenario(path)
    package = importlib.import_module(f"eutaxy.{scenario['platform']}")
    return scenario, package.create_platform(scenario)


def seed_of(path: str | Path) -> str:
    """The seed the CLI would use: the scenario file's name without ``.sim.py``."""
    return Path(path).name.removesuffix(".sim.py")


def check_case(path: str | Path, *, max_runs: int, budget_ms: int = BUDGET_MS) -> dict:
    scenario, platform = _open(path)
    try:
        return check_scenario(scenario, platform, seed=seed_of(path), max_runs=max_runs, budget_ms=budget_ms)
    finally:
        platform.close()


def replay_case(path: str | Path, schedule: dict) -> dict:
    scenario, platform = _open(path)
    try:
        return replay_scenario(scenario, platform, schedule, seed=seed_of(path))
    finally:
        platform.close()
