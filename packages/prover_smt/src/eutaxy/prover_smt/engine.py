"""The SMT engine: each property's negation asked of Z3, its models replayed on the real function.

For a ``forall`` property the query is "an input in the binders' domains where
``when`` holds and ``ensures`` does not" (:mod:`.encode`). Z3 answers within a
resource limit (``rlimit``, counted in Z3's own steps, never wall-clock, so the
same query has the same answer on every machine):

- unsat: PROVEN, with the engine's models listed as assumptions;
- sat: a candidate. The model's input is run through the real property in the
  evaluator; only if the claim fails there is it REFUTED (the replayed
  counterexample). Otherwise the engine's model disagreed with the real
  function: UNKNOWN (unsupported), with the model's input and what the real
  function did;
- unknown (the limit ran out, or Z3 gave up): UNKNOWN (gave_up).

Every call runs in a child process under the step limit and a wall-clock
deadline (:mod:`.solve`): a child killed at the deadline is UNKNOWN (gave_up)
naming the deadline. Only the engine's answers are cached (:mod:`.cache`):
never a killed, crashed or interrupted run.

A property using a construct the engine does not take is UNKNOWN
(unsupported) naming the construct and its line; ``total`` is Lean's, since a
solver does not decide termination.
"""

from __future__ import annotations

from typing import Mapping, Optional

import attrs

from eutaxy.prover.engine import (GAVE_UP, PROVEN, REFUTED, UNKNOWN, UNSUPPORTED_REASON, ModuleProofs, ProveInput,
                                  SpecVerdict)
from eutaxy.spec import Call, ForallProperty, Property, children, outside_nodes
from eutaxy.spec.values import decode, encode, show

from . import cache
from .encode import Encoder, Unsupported
from .model import value_of
from .solve import SAT, UNSAT, solve
from .toolchain import Z3_VERSION, load_z3

NAME = "smt"
#: Z3's resource limit per property (``--prover-steps``, ``prover-steps`` in the config). The knee of
#: bench/spec_smt_limits.py's curve (bench/README.md): it decides 11 of 23 contract properties and 9 of 13
#: everyday money claims, where 16M decides one more of each at three times the cost; a product of two
#: variables (bit-blasted multipliers) runs past it, which is gave_up.
RLIMIT_DEFAULT = 4_000_000
#: Seconds of wall clock one Z3 call may take before its process is killed (``--prover-deadline``). Far above what
#: the default step limit costs on the contract and money corpora (bench/README.md), so on a working machine the
#: step limit, which is deterministic, is what stops a query; the deadline stops the ones Z3 does not count.
DEADLINE_S_DEFAULT = 60.0

#: What every PROVEN rests on, as the engine models the language.
ASSUMPTIONS = (
    "number is the IEEE double (binary64, round to nearest even), NaN, the infinities and -0 included",
    "string is a sequence of UTF-16 code units",
    "records, tagged unions and nullable types are datatypes (=== on them is not modelled)",
    "the built-ins (Math, Number) are the standard ones",
    "the functions are pure and terminate",
    f"decided by Z3 {Z3_VERSION}; the solver's proof is not checked by a kernel",
)


@attrs.define(eq=False)
class SmtProver:
    """The ``smt`` engine (``--prover smt``). ``cache_results`` keeps answers by file and engine digests."""

    rlimit: int = RLIMIT_DEFAULT
    cache_results: bool = True
    deadline_s: float = DEADLINE_S_DEFAULT
    name: str = NAME

    def available(self) -> Mapping[str, str]:
        z3 = load_z3()
        if isinstance(z3, str):
            return {"unavailable": z3}
        return {"version": Z3_VERSION}

    @property
    def engine(self) -> dict:
        return {"name": self.name, "version": Z3_VERSION}

    def prove(self, input: ProveInput) -> ModuleProofs:
        z3 = load_z3()
        assert not isinstance(z3, str), "prove() is called only when available()"
        verdicts = {}
        for prop in input.properties:
            key = cache.key(input.module, prop, self.rlimit) if self.cache_results else None
            hit = cache.load(key, rlimit=self.rlimit) if key else None
            if hit is not None:
                verdicts[prop.name] = hit
                continue
            verdict, cacheable = self._prove_one(z3, input, prop)
            if key and cacheable:
                cache.store(key, verdict, rlimit=self.rlimit)
            verdicts[prop.name] = verdict
        return ModuleProofs(engine=self.engine, verdicts=verdicts)

    def _prove_one(self, z3, input: ProveInput, prop: Property) -> tuple[SpecVerdict, bool]:
        """The verdict, and whether it is the engine's answer (so it may be cached)."""
        if not isinstance(prop, ForallProperty):
            return self._unknown(prop, UNSUPPORTED_REASON,
                                 "total claims termination, which a solver does not decide"), True
        module = input.module
        if module.global_writes:
            write = module.global_writes[0]
            written = Unsupported("an assignment to a built-in", write.line, write.text, file=write.file)
            return self._unknown(prop, UNSUPPORTED_REASON,
                                 f"{write.file} line {write.line} writes {write.target} ({write.text}), and the engine "
                                 "models the built-ins as the standard ones", unsupported=written), True
        fn = module.body(prop.ref, prop.function)
        if fn is None:
            return self._unknown(prop, UNSUPPORTED_REASON,
                                 f"the reader did not read the body of {prop.function} (it resolves to no function "
                                 "declaration of a source file)"), True
        refused = _outside_in_reach(module, prop)
        if refused is not None:
            return self._unknown(prop, UNSUPPORTED_REASON, f"outside the subset: {refused.describe()}",
                                 unsupported=refused), True
        enc = Encoder(z3, module)
        try:
            binders, query = enc.claim(prop)
        except Unsupported as refused:
            if not refused.line:
                refused.line = prop.line
            return self._unknown(prop, UNSUPPORTED_REASON, f"not taken by the smt engine: {refused.describe()}",
                                 unsupported=refused), True
        solver = z3.Solver(ctx=enc.ctx)
        solver.add(query)
        answer = solve(z3, solver, lambda model: [encode(value_of(enc, model, b)) for b in binders],
                       rlimit=self.rlimit, deadline_s=self.deadline_s)
        if answer.kind == UNSAT:
            return SpecVerdict(kind=PROVEN, property=prop.name, rung=PROVEN, engine=self.engine,
                               assumptions=ASSUMPTIONS + _array_assumption(enc),
                               detail=f"Z3 found no counterexample (rlimit {self.rlimit})"), True
        if answer.kind == SAT:
            return self._replayed(input, prop, [decode(a) for a in answer.args]), True
        return self._unknown(prop, GAVE_UP, answer.why), answer.cacheable

    def _replayed(self, input: ProveInput, prop: ForallProperty, args: list) -> SpecVerdict:
        encoded = [encode(a) for a in args]
        outcome = input.replay(prop.name, encoded)
        shown = f"{prop.function}({', '.join(show(a) for a in args)})"
        counterexample = {"assignment": {b.name: v for b, v in zip(prop.binders, encoded)}, "args": encoded,
                          "outcome": outcome.to_data(), "source": "model"}
        if outcome.fails:
            return SpecVerdict(kind=REFUTED, property=prop.name, rung=PROVEN, engine=self.engine,
                               counterexample=counterexample, assumptions=ASSUMPTIONS,
                               detail=f"Z3's model, replayed on the real function, breaks the claim: {shown}")
        return SpecVerdict(kind=UNKNOWN, property=prop.name, rung=PROVEN, engine=self.engine,
                           reasons=(UNSUPPORTED_REASON,), counterexample=counterexample, assumptions=ASSUMPTIONS,
                           detail=(f"the engine's model disagreed with the real function: Z3 says the claim fails "
                                   f"at {shown}, the real function gave {outcome.kind}"))

    def _unknown(self, prop: Property, reason: str, detail: str,
                 unsupported: Optional[Unsupported] = None) -> SpecVerdict:
        return SpecVerdict(kind=UNKNOWN, property=prop.name, rung=PROVEN, engine=self.engine, reasons=(reason,),
                           detail=detail, unsupported=None if unsupported is None else unsupported.to_data())


def _outside_in_reach(module, prop: ForallProperty) -> Optional[Unsupported]:
    """The first construct outside the subset in the claim or in a body it reaches, in source order of reach."""
    seen, order = set(), [(prop.ref, prop.function)]
    for tree in (prop.when, prop.ensures):
        if tree is not None:
            found = outside_nodes(tree)
            if found:
                return Unsupported(found[0].construct, found[0].line, found[0].text)
            order.extend(_callees(tree))
    while order:
        ref, name = order.pop(0)
        if (ref, name) in seen:
            continue
        seen.add((ref, name))
        fn = module.body(ref, name)
        if fn is None:
            continue
        found = outside_nodes(fn.body)
        if found:
            return Unsupported(found[0].construct, found[0].line, found[0].text, where=fn.name)
        order.extend(_callees(fn.body))
    return None


def _callees(tree) -> list[tuple[str, str]]:
    """The module functions ``tree`` calls, as (declaration, name), in source order."""
    out: list[tuple[str, str]] = []

    def walk(e) -> None:
        if isinstance(e, Call) and e.target == "module":
            out.append((e.ref, e.callee))
        for child in children(e):
            walk(child)

    walk(tree)
    return out


def _array_assumption(enc: Encoder) -> tuple[str, ...]:
    if not enc.uses_arrays:
        return ()
    return ("arrays are dense sequences; an array binder's elements range over the element's whole sort",)
