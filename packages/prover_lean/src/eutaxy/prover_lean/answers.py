"""Lean's messages mapped back to the properties, by line.

One run checks a whole module, so a failed theorem does not hide another:

- an error inside a theorem's lines is that property's open goal: gave_up
  (Lean does not say whether the claim is false or the script weak; the
  TESTED rung is what refutes), with Lean's first diagnostic line;
- an error anywhere else means Eutaxy's own definitions did not compile: an
  engine gap, UNKNOWN (unsupported) for every property, never a verdict;
- a theorem with no error is PROVEN only when Eutaxy's own ``#check`` shows
  exactly its statement and its ``#print axioms`` names no axiom beyond Lean's
  standard three (``sorry`` is an axiom there); no such message is no answer;
- a run killed at its deadline, or one that printed nothing Eutaxy can read,
  is gave_up for every property.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Optional, Sequence

from eutaxy.prover.engine import GAVE_UP, PROVEN, UNKNOWN, UNSUPPORTED_REASON, SpecVerdict
from eutaxy.spec import Property

from .emit import Emission, Theorem, ident
from .run import LeanRun, Message

#: The axioms a proof may rest on: Lean's standard three.
STANDARD_AXIOMS = ("propext", "Classical.choice", "Quot.sound")

_DEPENDS = re.compile(r"^'(?P<name>[^']+)' depends on axioms: \[(?P<axioms>[^\]]*)\]\s*$")
_NONE = re.compile(r"^'(?P<name>[^']+)' does not depend on any axioms\s*$")


def axioms_of(text: str, theorem: str) -> Optional[tuple[str, ...]]:
    """The axioms ``#print axioms`` listed for ``theorem``, or None when the message is not that answer."""
    found = _DEPENDS.match(text.strip())
    if found and found.group("name") == theorem:
        return tuple(a.strip() for a in found.group("axioms").split(",") if a.strip())
    found = _NONE.match(text.strip())
    if found and found.group("name") == theorem:
        return ()
    return None


def first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0][:300]


class Answers:
    """Builds each property's verdict from one run; ``engine`` names Lean and its version."""

    def __init__(self, engine: dict[str, str], assumptions: Sequence[str], deadline_s: float) -> None:
        self.engine = engine
        self.assumptions = tuple(assumptions)
        self.deadline_s = deadline_s

    def unknown(self, prop: Property, reason: str, detail: str, unsupported: Optional[dict[str, Any]] = None) -> SpecVerdict:
        return SpecVerdict(kind=UNKNOWN, property=prop.name, rung=PROVEN, engine=dict(self.engine),
                           reasons=(reason,), detail=detail, unsupported=unsupported)

    def verdicts(self, properties: Sequence[Property], emission: Emission, run: Optional[LeanRun],
                 supplied_name: str = "", supplied_lines: Optional[Mapping[str, int]] = None,
                 ) -> tuple[dict[str, SpecVerdict], Optional[dict[str, str]]]:
        """Each property's verdict, and the open goals (property -> Lean's first diagnostic line).

        The goals are None when Lean gave no answer to read (it did not run, did not finish,
        or Eutaxy's own definitions did not compile): no answer is never "no open goals".
        """
        out: dict[str, SpecVerdict] = {}
        goals: dict[str, str] = {}
        for prop in properties:
            refused = emission.unsupported.get(prop.name)
            if refused is not None:
                out[prop.name] = self.unknown(prop, UNSUPPORTED_REASON,
                                              f"not taken by the lean engine: {refused.describe()}",
                                              unsupported=refused.to_data())
        pending = [p for p in properties if p.name not in out]
        if not pending:
            return out, None if run is None else goals
        assert run is not None, "Lean runs whenever a property was emitted"
        if run.timed_out:
            for prop in pending:
                out[prop.name] = self.unknown(prop, GAVE_UP, f"Lean did not finish within {self.deadline_s:g} s "
                                                              "and was stopped")
            return out, None
        errors = [m for m in run.messages if m.severity == "error"]
        inside = {name: [m for m in errors if t.first_line <= m.line <= t.last_line]
                  for name, t in emission.theorems.items()}
        lemmas = emission.lemmas_lines
        in_lemmas = [m for m in errors if lemmas is not None and lemmas[0] <= m.line <= lemmas[1]]
        claimed = {id(m) for ms in inside.values() for m in ms} | {id(m) for m in in_lemmas}
        stray = [m for m in errors if id(m) not in claimed]
        if stray or (not run.messages and run.returncode not in (0, None)):
            why = (f"line {stray[0].line}: {first_line(stray[0].text)}" if stray
                   else f"Lean exited {run.returncode} printing no message: {first_line(run.stderr)}")
            for prop in pending:
                out[prop.name] = self.unknown(prop, UNSUPPORTED_REASON,
                                              f"the emitted definitions did not compile (an engine gap, not a "
                                              f"verdict): {why}")
            return out, None
        infos = {m.line: m for m in run.messages if m.severity == "information"}
        for prop in pending:
            if prop.name in emission.totals:
                out[prop.name] = SpecVerdict(
                    kind=PROVEN, property=prop.name, rung=PROVEN, engine=dict(self.engine),
                    assumptions=self.assumptions,
                    detail=f"Lean accepted the definition of {prop.function}, which it does only for a "
                           "function that terminates")
                continue
            theorem = emission.theorems[prop.name]
            if theorem.proof == "supplied" and in_lemmas:
                out[prop.name] = self.unknown(prop, GAVE_UP, f"the lemmas supplied in {supplied_name} did not "
                                                             f"compile: {first_line(in_lemmas[0].text)}")
                continue
            out[prop.name], goal = self._theorem(prop, theorem, inside[prop.name], infos, supplied_name,
                                                 supplied_lines or {})
            if goal is not None:
                goals[prop.name] = goal
        return out, goals

    def _theorem(self, prop: Property, theorem: Theorem, errors: list[Message], infos: dict[int, Message],
                 supplied_name: str, supplied_lines: Mapping[str, int]) -> tuple[SpecVerdict, Optional[str]]:
        supplied = theorem.proof == "supplied"
        if errors:
            diagnostic = first_line(errors[0].text)
            if supplied:
                line = errors[0].line - theorem.tactics_line + supplied_lines.get(prop.name, 0)
                where = f"the proof supplied in {supplied_name} (its line {line})" if line > 0 else \
                    f"the proof supplied in {supplied_name}"
            else:
                where = f"the tactic script (line {errors[0].line} of the emitted file)"
            return self.unknown(prop, GAVE_UP, f"{where} did not close the goal: {diagnostic}"), diagnostic
        name = ident("t_", prop.name)
        check = infos.get(theorem.check_line)
        expected = f"{name} : {ident('s_', prop.name)}"
        if check is None or check.text.strip() != expected:
            shown = "nothing" if check is None else repr(first_line(check.text))
            return self.unknown(prop, GAVE_UP, f"Lean's #check of {name} showed {shown}, not {expected!r}: "
                                               "the statement proved is not Eutaxy's"), None
        printed = infos.get(theorem.axioms_line)
        axioms = None if printed is None else axioms_of(printed.text, name)
        if axioms is None:
            return self.unknown(prop, GAVE_UP, f"Lean printed no axioms for {name} at line {theorem.axioms_line}; "
                                               "no answer is not a proof"), None
        extra = [a for a in axioms if a not in STANDARD_AXIOMS]
        if extra:
            return self.unknown(prop, GAVE_UP, f"the proof rests on {', '.join(extra)}, outside Lean's standard "
                                               f"axioms ({', '.join(STANDARD_AXIOMS)})"), None
        how = f"the proof was supplied in {supplied_name}" if supplied else "the engine's tactic script"
        return SpecVerdict(kind=PROVEN, property=prop.name, rung=PROVEN, engine=dict(self.engine),
                           assumptions=self.assumptions + ((f"the proof was supplied in {supplied_name}",)
                                                           if supplied else ()),
                           detail=f"Lean's kernel accepted {how}; axioms: {', '.join(axioms) or 'none'}"), None
