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

__all__ = ["ENGINE_KINDS", "GAVE_UP", "ConstructUnsupported", "ModuleProofs", "PROVEN", "ProveInput", "Prover", "REFUTED", "Replay",
           "SpecVerdict", "UNAVAILABLE", "UNKNOWN", "UNSUPPORTED_REASON", "checked_answer", "engine_answers"]

#: What an engine may answer.
ENGINE_KINDS = (PROVEN, REFUTED, UNKNOWN)


class ConstructUnsupported(Exception):
    """A construct an engine does not take: what it is, its line (0 when unknown), its text and where.

    Each engine raises its own subclass (``eutaxy.prover_smt.encode.Unsupported``,
    ``eutaxy.prover_lean.emit.Unsupported``), which says how its text is written after the place.
    """

    #: How :meth:`describe` writes the text after the place (``{}`` is the text).
    TEXT_FORMAT = ": {}"

    def __init__(self, construct: str, line: int = 0, text: str = "", where: str = "", file: str = "") -> None:
        super().__init__(construct)
        self.construct = construct
        self.line = line
        self.text = text
        #: The module function it stands in, or "" for the property's claim (in the spec file).
        self.where = where
        #: The file it stands in, when it is neither the claim's nor a body's (a write to a built-in).
        self.file = file

    def describe(self) -> str:
        at = f" at line {self.line}" if self.line else ""
        place = f" in {self.where}" if self.where else f" in {self.file}" if self.file else " in the claim"
        return f"{self.construct}{at}{place}" + (self.TEXT_FORMAT.format(self.text) if self.text else "")

    def to_data(self) -> dict[str, Any]:
        return {"construct": self.construct, "line": self.line, "text": self.text,
                "file": self.file or ("module" if self.where else "spec"), "function": self.where or None}

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
