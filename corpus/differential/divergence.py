"""The planted divergence every differential gate needs, written once.

Each gate's second test must show the runner reports a difference, so it can fail. It puts a
scratch double in front of the real platform, as a buggy proxy would be: the proxied side runs
the scenario as ``change`` rewrites it (a deep copy; the raw side keeps the original):
``diverged`` runs both sides so, and ``differing_tables`` gives the tables the runner found
different, by name.
"""

import copy
from collections.abc import Callable
from typing import Any

import attrs

from eutaxy.cloudflare.differential import DifferentialRunner


class ScenarioChangingPlatform:
    """The real platform, running every plan's scenario as ``change`` rewrites a copy of it."""

    def __init__(self, inner: Any, change: Callable[[dict[str, Any]], None]) -> None:
        self._inner = inner
        self._change = change

    def run(self, plan: Any) -> Any:
        scenario = copy.deepcopy(dict(plan.scenario))
        self._change(scenario)
        return self._inner.run(attrs.evolve(plan, scenario=scenario))


def changing_scenario(change: Callable[[dict[str, Any]], None]) -> Callable[[Any], ScenarioChangingPlatform]:
    """A ``wrap_platform`` for ``DifferentialRunner``: the proxied side's scenario, changed in place by ``change``."""
    return lambda inner: ScenarioChangingPlatform(inner, change)


def diverged(scenario: Any, seed: str, change: Callable[[dict[str, Any]], None]) -> Any:
    """The outcome of the proxied run of ``scenario`` as ``change`` rewrites it, against the raw run of it as it is."""
    with DifferentialRunner(scenario, wrap_platform=changing_scenario(change)) as runner:
        return runner.run(seed=seed)


def differing_tables(outcome: Any) -> dict[str, dict[str, Any]]:
    """The table differences the runner reported, by table name (``D1:DB/ledger``), in its order."""
    return {difference["table"]: difference for difference in outcome.differences if difference["kind"] == "table"}
