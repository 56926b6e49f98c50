"""The interface a proving engine (prover_smt, prover_lean, a third party's) offers the ladder.

An engine sees the SpecIR the reader produced, never the compiler, and answers
one :class:`eutaxy.core.verdicts.SpecVerdict` per property at the ``proven``
rung: PROVEN, REFUTED (its counterexample replayed on the real function first,
by the engine), or UNKNOWN with why (gave_up, unsupported, unavailable). The
ladder folds the answers in (``ladder.fold_engines``); an engine never decides
what another rung found.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from eutaxy.core.verdicts import PROVEN, REFUTED, UNKNOWN, SpecVerdict
from eutaxy.spec import Property, SpecModule

#: What an engine may answer.
ENGINE_KINDS = (PROVEN, REFUTED, UNKNOWN)


@runtime_checkable
class Prover(Protocol):
    """A proving engine. ``name`` is what ``--prover <name>`` selects."""

    name: str

    def prove(self, module: SpecModule, prop: Property) -> SpecVerdict:
        """The engine's verdict on ``prop`` of ``module`` (rung ``proven``, ``engine`` naming itself)."""
        ...


def checked_answer(prover: Prover, verdict: SpecVerdict) -> SpecVerdict:
    """Assert an engine's answer is one the ladder can fold: a kind engines give, at the proven rung, naming the engine."""
    assert verdict.kind in ENGINE_KINDS, f"engine {prover.name} answered {verdict.kind}"
    assert verdict.rung == PROVEN, f"engine {prover.name} answered at rung {verdict.rung}"
    assert verdict.engine and verdict.engine.get("name"), f"engine {prover.name} did not name itself"
    return verdict
