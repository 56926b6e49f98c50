"""The interface a proving engine (prover_smt, prover_lean, a third party's) offers the ladder.

An engine sees the SpecIR the reader produced (the properties and the bodies
of the functions they name), never the compiler, and answers one
:class:`eutaxy.core.verdicts.SpecVerdict` per property at the ``proven`` rung:
PROVEN, REFUTED (its counterexample replayed on the real function first,
through :attr:`ProveInput.replay`), or UNKNOWN with why (gave_up, unsupported,
unavailable). The ladder folds the answers in (``ladder.fold_engines``); an
engine never decides what another rung found.

The shape is the seeds' ``Prover``: ``name``, ``available()`` (the version, or
why it cannot run here) and ``prove(input) -> ModuleProofs``.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Protocol, Sequence, runtime_checkable

import attrs

# The vocabulary an engine answers in, re-exported here: engines may import prover and spec only.
from eutaxy.core.verdicts import GAVE_UP, PROVEN, REFUTED, UNAVAILABLE, UNKNOWN, UNSUPPORTED_REASON, SpecVerdict
from eutaxy.spec import Property, SpecModule

__all__ = ["ENGINE_KINDS", "GAVE_UP", "ModuleProofs", "PROVEN", "ProveInput", "Prover", "REFUTED", "Replay",
           "SpecVerdict", "UNAVAILABLE", "UNKNOWN", "UNSUPPORTED_REASON", "checked_answer", "engine_answers"]

#: What an engine may answer.
ENGINE_KINDS = (PROVEN, REFUTED, UNKNOWN)

#: Runs a property's claim on encoded arguments in the real function (the evaluator): the outcome.
Replay = Callable[[str, Sequence[Any]], Any]


@attrs.frozen(kw_only=True)
class ProveInput:
    """What an engine is asked: a module read into SpecIR, the properties to decide, and a way to replay."""

    module: SpecModule
    properties: tuple[Property, ...]
    #: ``replay(property_name, encoded_args) -> eutaxy.prover.evaluator.Outcome`` on the real function.
    replay: Replay


@attrs.frozen(kw_only=True)
class ModuleProofs:
    """An engine's answers for one module: ``{property name: verdict}`` and the engine that gave them."""

    engine: Mapping[str, str]
    verdicts: Mapping[str, SpecVerdict]


@runtime_checkable
class Prover(Protocol):
    """A proving engine. ``name`` is what ``--prover <name>`` selects."""

    name: str

    def available(self) -> Mapping[str, str]:
        """``{"version": ...}`` when the engine can run here, else ``{"unavailable": why, with the install command}``."""
        ...

    def prove(self, input: ProveInput) -> ModuleProofs:
        """The engine's verdict on each property of ``input`` (rung ``proven``, ``engine`` naming itself)."""
        ...


def checked_answer(prover: Prover, verdict: SpecVerdict) -> SpecVerdict:
    """Assert an engine's answer is one the ladder can fold: a kind engines give, at the proven rung, naming the engine."""
    assert verdict.kind in ENGINE_KINDS, f"engine {prover.name} answered {verdict.kind}"
    assert verdict.rung == PROVEN, f"engine {prover.name} answered at rung {verdict.rung}"
    assert verdict.engine and verdict.engine.get("name"), f"engine {prover.name} did not name itself"
    return verdict


def engine_answers(prover: Prover, module: SpecModule, properties: Sequence[Property],
                   replay: Replay) -> dict[str, SpecVerdict]:
    """One engine's checked answer per property; an engine that cannot run here is UNKNOWN (unavailable) for each."""
    status = prover.available()
    if "version" not in status:
        why = status.get("unavailable", "the engine cannot run here")
        return {p.name: SpecVerdict(kind=UNKNOWN, property=p.name, rung=PROVEN, reasons=(UNAVAILABLE,),
                                    engine={"name": prover.name, "version": ""}, detail=why)
                for p in properties}
    proofs = prover.prove(ProveInput(module=module, properties=tuple(properties), replay=replay))
    out = {}
    for p in properties:
        assert p.name in proofs.verdicts, f"engine {prover.name} gave no answer for {p.name}"
        out[p.name] = checked_answer(prover, proofs.verdicts[p.name])
    return out
