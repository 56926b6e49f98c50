"""The Lean engine behind ``--prover lean``: emit the module, run the pinned Lean once, map its answers back.

A property outside the subset is UNKNOWN (unsupported) naming the construct
and line without running anything; the rest of the module goes to one Lean
run with a deadline (a run past it is killed, gave_up). A proof file beside
the spec file (``domain.props.lean``) replaces the tactic script of the
properties it proves, after :mod:`.proofs` has checked it; a refused or stale
file is UNKNOWN with the reason for every property it names, never PROVEN.
The Lean kernel, not Eutaxy, checks each proof.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Mapping, Optional, Union

import attrs

from eutaxy.prover.engine import ModuleProofs, ProveInput, SpecVerdict
from eutaxy.spec import SpecModule

from . import cache, proofs
from .answers import Answers
from .emit import emit_module
from .run import run_lean
from .toolchain import LEAN_VERSION, FoundLean, find_lean

NAME = "lean"
#: Wall-clock time one module's Lean run may take before it is killed (a timeout is gave_up, never a failure).
DEADLINE_S_DEFAULT = 300.0

#: What every PROVEN rests on, as the engine models the language.
ASSUMPTIONS = (
    "number is the unbounded integers: no overflow, no fractions, no NaN (a claim about doubles belongs to the "
    "SMT engine)",
    "string is a sequence of Unicode characters (a lone surrogate is outside every string binder's domain)",
    "arrays are dense lists",
    "the built-ins (Math, Number) are the standard ones",
    "the functions are pure",
    f"checked by the kernel of Lean {LEAN_VERSION}",
)


@attrs.frozen(kw_only=True)
class ModuleGoals:
    """The open goals of one module, from a run Lean answered: what ``--goals`` writes beside its spec file."""

    spec: str
    module: str
    #: Property name -> (the statement emitted, Lean's first diagnostic line).
    goals: Mapping[str, tuple[str, str]]


@attrs.define(eq=False)
class LeanProver:
    """The ``lean`` engine. ``lean`` overrides the lookup (a path to an executable); ``deadline_s`` bounds a run."""

    lean: Optional[Path] = None
    deadline_s: float = DEADLINE_S_DEFAULT
    #: Keep answers in Eutaxy's cache by what they depend on (:mod:`.cache`); ``--no-cache`` turns it off.
    cache_results: bool = True
    name: str = NAME
    #: Spec file -> its open goals, for every module Lean answered (``eutaxy report --goals``).
    goals: dict[str, ModuleGoals] = attrs.field(factory=dict)
    #: One module's answers by the text Lean was given: the ladder asks property by property.
    _runs: dict[str, dict[str, SpecVerdict]] = attrs.field(factory=dict, init=False)

    def _found(self) -> Union[FoundLean, str]:
        if self.lean is not None:
            return FoundLean(lean=self.lean, version=LEAN_VERSION, source="given")
        return find_lean()

    def available(self) -> Mapping[str, str]:
        found = self._found()
        if isinstance(found, str):
            return {"unavailable": found}
        return {"version": found.version}

    @property
    def engine(self) -> dict[str, str]:
        return {"name": self.name, "version": LEAN_VERSION}

    def prove(self, input: ProveInput) -> ModuleProofs:
        """The engine's answer for each property asked, from one Lean run over the whole module.

        The ladder asks one property at a time; the module's run is made once and kept
        (keyed by the text Lean is given), so a failed theorem never hides another and
        Lean is not started once per property.
        """
        found = self._found()
        assert not isinstance(found, str), "prove() is called only when available()"
        verdicts = self._module_answers(found, input.module)
        return ModuleProofs(engine=self.engine, verdicts={p.name: verdicts[p.name] for p in input.properties})

    def _module_answers(self, found: FoundLean, module: SpecModule) -> dict[str, SpecVerdict]:
        answers = Answers(self.engine, ASSUMPTIONS, self.deadline_s)
        loaded = proofs.load(module)
        verdicts: dict[str, SpecVerdict] = {}
        supplied = None
        if isinstance(loaded, proofs.Refused):
            for prop in module.properties:
                if prop.name in loaded.names or loaded.whole:
                    verdicts[prop.name] = answers.unknown(prop, loaded.reason, loaded.detail)
        elif loaded is not None:
            supplied = loaded
        remaining = [p for p in module.properties if p.name not in verdicts]
        emission = emit_module(module, supplied)
        key = hashlib.sha256("\0".join([module.spec, str(found.lean), emission.text,
                                         *sorted(f"{k}={v.detail}" for k, v in verdicts.items())]).encode()).hexdigest()
        if key in self._runs:
            return self._runs[key]
        stored_key = cache.key(module, found, emission.text, verdicts) if self.cache_results else None
        stored = cache.load(stored_key) if stored_key else None
        if stored is not None:
            answered_all, stored_goals = stored
            if stored_goals is not None:
                self.goals[module.spec] = ModuleGoals(spec=module.spec, module=module.module or "", goals=stored_goals)
            self._runs[key] = answered_all
            return answered_all
        ran = None
        if any(p.name in emission.theorems or p.name in emission.totals for p in remaining):
            ran = run_lean(found.lean, emission.text, self.deadline_s)
        answered, goals = answers.verdicts(remaining, emission, ran,
                                           supplied_name="" if supplied is None else supplied.name,
                                           supplied_lines=None if supplied is None else supplied.proof_lines)
        verdicts.update(answered)
        if goals is not None:
            # Only a run Lean answered lists goals: none is not "no open goals".
            self.goals[module.spec] = ModuleGoals(
                spec=module.spec, module=module.module or "",
                goals={name: (emission.theorems[name].statement, diagnostic) for name, diagnostic in goals.items()})
        self._runs[key] = verdicts
        if stored_key and not (ran is not None and ran.timed_out):
            # A run stopped at its deadline depends on the machine's speed: it is not kept.
            cache.store(stored_key, verdicts, None if goals is None else self.goals[module.spec].goals)
        return verdicts
