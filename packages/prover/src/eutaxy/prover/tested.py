"""The TESTED rung: a property evaluated on assignments drawn from its binders' types.

The order is fixed so a seed fixes the verdict on every machine:

1. Edges, before any random draw: each binder's edges walked side by side once
   in step (binder ``j`` takes its ``k``-th edge, so equal edges meet) and once
   rotated (binder ``j`` starts ``j`` places in, so binders of one type differ).
   Every edge of every binder is tried, however many there are.
2. Random draws from the property's own stream (``seed`` + ``"tested/" +
   name``), biased as ``domains`` says, steered by ``when``'s constant guards,
   and relating later integer binders to earlier ones.
   A domain small enough (an integral range of at most ``MAX_ENUMERATE_DEFAULT``
   values, a union of literals, booleans, records and products of those) is
   instead enumerated whole after the edges, and no random draw follows.
3. Stop at ``max_inside`` distinct assignments inside the claim with at least
   half of them from random draws, or after twenty times ``max_inside`` random
   draws (UNKNOWN gave_up when none was inside), or once a small finite domain
   is exhausted.
4. The first failing assignment is shrunk binder by binder and reported as
   REFUTED with the shrunk assignment.

Counting is by distinct assignment, as CHECKED counts: an assignment drawn
twice is evaluated once.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple, Optional, Sequence

from eutaxy.core.verdicts import GAVE_UP, REFUTED, TESTED, UNKNOWN, UNSUPPORTED_REASON, SpecVerdict
from eutaxy.spec import BigIntType, ForallProperty, NullableType, NumberType, Property, TotalProperty
from eutaxy.spec.values import BigInt, encode, is_number, key, number, show

from . import domains, generators
from .evaluator import DIED, MALFORMED, THREW, Evaluator, Outcome, limit_ms
from .node import NodeError
from .randomness import Draws
from .regex_walk import sample_strings
from .rung import RungResult
from .steering import Guide, guides, mentioned_strings

#: Distinct assignments inside the claim the rung stops at, unless configured.
MAX_INSIDE_DEFAULT = 100
#: Random draws allowed per assignment asked for inside the claim.
DRAWS_PER_INSIDE = 20
#: Draws per round trip to the evaluator, at least, and at most.
ROUND = 128
ROUND_MAX = 2048
#: Evaluations a shrink may spend; past it the assignment found so far is reported.
SHRINK_EVALUATIONS_MAX = 2000
#: Walked strings asked of the real RegExp at a time.
POOL_SIZE = 128
#: How often a later integer binder is tied to earlier ones (equal, sum or difference).
RELATE_CHANCE = 0.2

ASSUMPTIONS = ("the function is pure (it is called outside the simulator)",
               "number is the IEEE double")


def run_tested(prop: Property, evaluator: Evaluator, seed: str, *,
               max_inside: int = MAX_INSIDE_DEFAULT, show_inputs: int = 0) -> RungResult:
    """Run the TESTED rung on one property whose spec file ``evaluator`` has loaded.

    ``show_inputs`` keeps the first that many assignments evaluated (encoded, in
    order) in the result's ``inputs``.
    """
    assert max_inside > 0, max_inside
    if isinstance(prop, TotalProperty):
        return _unknown(prop, seed, UNSUPPORTED_REASON,
                        "total claims termination, which no sampled input shows")
    assert isinstance(prop, ForallProperty), prop
    given = evaluator.generators.get(prop.name) or []
    for j, binder in enumerate(prop.binders):
        if j < len(given) and given[j] is not None:
            continue  # a custom generator draws it, whatever its type
        why = domains.is_drawable(binder.type)
        if why:
            return _unknown(prop, seed, UNSUPPORTED_REASON, f"binder {binder.name} is not drawn: {why}")
    return _Run(prop, evaluator, seed, max_inside, show_inputs).run()


def _unknown(prop: Property, seed: str, reason: str, detail: str, *, malformed: bool = False,
             evaluated: int = 0, draws: int = 0, edges: int = 0, counts: Optional[dict] = None,
             stopped: Optional[dict] = None, inputs: tuple = ()) -> RungResult:
    verdict = SpecVerdict(kind=UNKNOWN, property=prop.name, rung=TESTED, reasons=(reason,), seed=seed,
                          detail=detail, counts=counts or {TESTED: 0}, assumptions=ASSUMPTIONS)
    return RungResult(verdict=verdict, malformed=malformed, evaluated=evaluated, draws=draws, edges=edges,
                      stopped=stopped, inputs=inputs)


def _show_call(prop: Property, assignment: Sequence[Any]) -> str:
    return f"{prop.function}({', '.join(show(v) for v in assignment)})"


def _stopped_data(prop: Property, assignment: Sequence[Any], outcome: Outcome) -> dict:
    """The input an evaluation gave no answer on, as a report carries it."""
    return {"args": [encode(v) for v in assignment],
            "assignment": {b.name: encode(v) for b, v in zip(prop.binders, assignment)},
            "outcome": outcome.to_data()}


def overload_assumption(prop: Property) -> tuple[str, ...]:
    """An overloaded function's claim is over one overload: the last, which ``Parameters<F>`` takes."""
    overload = getattr(prop, "overload", None)
    if not overload:
        return ()
    return (f"quantified over the last of {overload.get('count')} overloads of {prop.function}, "
            f"{overload.get('chosen')}, the one the compiler checked the claim against",)


def _absent_too(binder) -> Any:
    """An optional parameter (``b?: T`` or ``b = 5``) is drawn absent too: its type with undefined."""
    t = binder.type
    if not binder.optional or isinstance(t, NullableType) and t.undefined:
        return t
    if isinstance(t, NullableType):
        return NullableType(inner=t.inner, null=t.null, undefined=True, name=t.name)
    return NullableType(inner=t, null=False, undefined=True, name=f"{t.name} | undefined" if t.name else "")


def sample_assumption(sample: Optional[dict]) -> tuple[str, ...]:
    if not sample:
        return ()
    parts = ", ".join(f"{k} {v}" for k, v in sorted(sample.items()))
    return (f"draws limited by sample ({parts}); the claim is not",)


def length_assumptions(types: Sequence[Any], gens: Sequence[Optional[dict[str, Any]]],
                       ctx: domains.DrawContext) -> tuple[str, ...]:
    """The lengths drawn, where a binder the type draws holds an array or a string: a claim that
    holds up to them may still break past them, and the verdict says so."""
    kinds: set[str] = set()
    for t, gen in zip(types, gens, strict=True):
        if gen is None:
            kinds |= domains.lengthy_kinds(t)
    out = []
    if "array" in kinds:
        out.append(f"arrays are drawn with at most {ctx.max_array_length} elements "
                   f"(sample.maxArrayLength) unless the precondition asks for more; longer ones were not tried")
    if "string" in kinds:
        out.append(f"strings are drawn with at most {ctx.max_string_length} UTF-16 units "
                   f"(sample.maxStringLength) unless the precondition asks for longer")
    return tuple(out)


class _Run:
    """The state of one TESTED run: what was evaluated, what held, what failed."""

    def __init__(self, prop: ForallProperty, evaluator: Evaluator, seed: str, max_inside: int,
                 show_inputs: int = 0) -> None:
        self.show_inputs = show_inputs
        self.inputs: list[list] = []
        self.prop = prop
        self.evaluator = evaluator
        self.seed = seed
        self.max_inside = max_inside
        self.types = [_absent_too(b) for b in prop.binders]
        self.guides = guides(prop.when, len(self.types), self.types)
        #: A custom generator per binder (``inputs``), or ``None`` where the type draws.
        given = list(evaluator.generators.get(prop.name) or [])
        self.gens: list[Optional[dict]] = [given[j] if j < len(given) else None for j in range(len(self.types))]
        for j, g in enumerate(self.gens):
            if g is not None:
                self.types[j], self.guides[j] = generators.domain(g)
        #: Per binder, the earlier binders of its kind a random number or bigint may be tied to
        #: (``None`` for the first binder, one a custom generator draws, and every other kind).
        self.related_to: list[Optional[tuple[int, ...]]] = [
            tuple(i for i in range(j) if type(self.types[i]) is type(t))
            if j > 0 and self.gens[j] is None and isinstance(t, (NumberType, BigIntType)) else None
            for j, t in enumerate(self.types)]
        self.draws = Draws.for_property(seed, prop.name, ahead=self._words_ahead)
        sample = prop.sample or {}
        self.ctx = domains.DrawContext(
            draws=self.draws,
            max_array_length=int(sample.get("maxArrayLength", domains.ARRAY_LENGTH_MAX)),
            max_string_length=int(sample.get("maxStringLength", domains.STRING_LENGTH_MAX)),
            string_pool=self._pooled_string,
            mentioned=mentioned_strings(prop.when, prop.ensures),
            near=domains.near_constants(prop.constants))
        self.pools: dict[tuple, list[str]] = {}
        self.seen: set[str] = set()
        self.inside = 0
        self.random_inside = 0
        self.evaluable = 0
        self.draw_count = 0
        self.last_ordinal = 0
        self.edge_count = 0
        self.failure: Optional[tuple[tuple, Outcome]] = None
        self.malformed: Optional[Outcome] = None
        #: An assignment whose evaluation gave no answer (it ran past the limit, or ended the evaluator).
        self.stopped: Optional[tuple[tuple, Outcome]] = None
        self.limit_ms = limit_ms(prop)
        self.domain_size = self._domain_size()
        limit = int(sample.get("maxEnumerate", domains.MAX_ENUMERATE_DEFAULT))
        #: Every assignment of a domain small enough to see whole (``None`` when it is not).
        self.enumeration = domains.enumerate_assignments(self.types, self.guides, limit) if limit > 0 else None
        if self.enumeration is not None and any(g is not None for g in self.gens):
            self.enumeration = [a for a in self.enumeration
                                if all(g is None or generators.admits(g, v) for g, v in zip(self.gens, a))]
        self.enumerated = False

    # -- phases ---------------------------------------------------------------------

    def run(self) -> RungResult:
        edge_assignments = [_prepared(a) for a in self._edge_assignments()]
        self.edge_count = len(edge_assignments)
        for start in range(0, len(edge_assignments), ROUND):
            chunk = edge_assignments[start:start + ROUND]
            self._evaluate(chunk, from_edges=True, ordinals=range(start + 1, start + 1 + len(chunk)))
            if self._decided():
                self.draw_count = self.last_ordinal
                return self._finish()
        if self.enumeration is not None:
            return self._enumerate()
        draw_limit = DRAWS_PER_INSIDE * self.max_inside
        random_draws = 0
        while not self._enough() and not self._exhausted() and random_draws < draw_limit:
            batch: list[_Prepared] = []
            ordinals: list[int] = []
            batch_keys: set[str] = set()
            # Rounds grow with what is still owed (the verdict does not depend on their size).
            round_size = min(ROUND_MAX, max(ROUND, 2 * (self.max_inside - self.inside)))
            seen, draw = self.seen, self._draw_assignment
            while len(batch) < round_size and random_draws < draw_limit:
                prepared = _prepared(draw())
                random_draws += 1
                if prepared.key in seen or prepared.key in batch_keys:
                    continue
                batch_keys.add(prepared.key)
                batch.append(prepared)
                ordinals.append(self.edge_count + random_draws)
            self._evaluate(batch, from_edges=False, ordinals=ordinals)
            if self._decided():
                break
            if self._exhausted():
                break
        # Draws past the stopping point were made but never looked at.
        stopped_early = self._enough() or self._decided()
        self.draw_count = self.last_ordinal if stopped_early else self.edge_count + random_draws
        return self._finish()

    def _enumerate(self) -> RungResult:
        """A small domain, every assignment of it after the edges: no seed can miss an isolated failure."""
        assert self.enumeration is not None
        fresh = [p for p in (_prepared(a) for a in self.enumeration) if p.key not in self.seen]
        for start in range(0, len(fresh), ROUND):
            chunk = fresh[start:start + ROUND]
            first = self.edge_count + start + 1
            self._evaluate(chunk, from_edges=True, ordinals=range(first, first + len(chunk)))
            if self._decided():
                break
        self.draw_count = self.last_ordinal
        self.enumerated = not self._decided()
        return self._finish()

    def _decided(self) -> bool:
        """A failure, a malformed property or an evaluation with no answer ends the rung."""
        return bool(self.failure or self.malformed or self.stopped)

    def _enough(self) -> bool:
        return self.inside >= self.max_inside and self.random_inside >= self.max_inside // 2

    def _exhausted(self) -> bool:
        return self.enumerated or self.domain_size is not None and len(self.seen) >= self.domain_size

    def _domain_size(self) -> Optional[int]:
        total = 1
        for t in self.types:
            c = domains.cardinality(t)
            if c is None:
                return None
            total *= c
        return total

    def _evaluate(self, batch: Sequence["_Prepared"], *, from_edges: bool,
                  ordinals: Sequence[int]) -> None:
        """Evaluate a batch, then take its outcomes in order, stopping exactly where the rung stops.

        Outcomes past the stopping point are dropped, so the verdict does not
        depend on how many assignments travel per round trip.
        """
        picked = [(p, o) for p, o in zip(batch, ordinals) if p.key not in self.seen]
        if not picked:
            return
        outcomes = self.evaluator.evaluate_encoded(self.prop.name, [p.encoded for p, _ in picked],
                                                   limit_ms=self.limit_ms)
        # A random batch stops once enough are inside (the check follows each count that can
        # make it true); the outcomes past that point are dropped.
        assert from_edges or not self._enough()
        for (prepared, ordinal), outcome in zip(picked, outcomes):
            self.seen.add(prepared.key)
            self.last_ordinal = ordinal
            if len(self.inputs) < self.show_inputs:
                self.inputs.append(prepared.encoded)
            assignment = prepared.assignment
            if outcome.stopped:
                self.stopped = (assignment, outcome)
                return
            if outcome.kind == MALFORMED:
                self.malformed = outcome
                return
            if outcome.kind == THREW and outcome.phase == "when":
                continue
            self.evaluable += 1
            if not outcome.inside:
                continue
            if outcome.fails:
                self.failure = (assignment, outcome)
                return
            self.inside += 1
            if not from_edges:
                self.random_inside += 1
                if self._enough():
                    return

    # -- edges ----------------------------------------------------------------------

    def _edge_assignments(self) -> list[tuple]:
        per_binder = [domains.edges(t, g) if gen is None else (generators.edges(gen) or [generators.draw(gen, self.ctx)])
                      for t, g, gen in zip(self.types, self.guides, self.gens)]
        if not per_binder:
            return [()]
        count = max(len(e) for e in per_binder)
        in_step = [tuple(e[k % len(e)] for e in per_binder) for k in range(count)]
        rotated = [tuple(e[(k + j) % len(e)] for j, e in enumerate(per_binder)) for k in range(count)]
        out, keys = [], set()
        for assignment in in_step + rotated + self._near_assignments(per_binder):
            k = _assignment_key(assignment)
            if k not in keys:
                keys.add(k)
                out.append(assignment)
        return out

    def _near_assignments(self, edges_per_binder: list[list[Any]]) -> list[tuple[Any, ...]]:
        """Assignments near the source's constants, walked as edges are (in step, then rotated);
        a binder holding no number takes its edges. None when no binder holds a number."""
        near = self.ctx.near
        per_binder = []
        for t, g, gen in zip(self.types, self.guides, self.gens, strict=True):
            values = domains.near_values(t, g, near)
            per_binder.append([v for v in values if gen is None or generators.admits(gen, v)])
        if not any(per_binder):
            return []
        lists = [values or edges for values, edges in zip(per_binder, edges_per_binder, strict=True)]
        count = max(len(values) for values in per_binder)
        in_step = [tuple(e[k % len(e)] for e in lists) for k in range(count)]
        rotated = [tuple(e[(k + j) % len(e)] for j, e in enumerate(lists)) for k in range(count)]
        return in_step + rotated

    # -- random draws ---------------------------------------------------------------

    def _draw_assignment(self) -> tuple:
        values: list[Any] = []
        ctx = self.ctx
        for t, g, gen, related_to in zip(self.types, self.guides, self.gens, self.related_to):
            if gen is not None:
                values.append(generators.draw(gen, ctx))
                continue
            value = domains.draw(t, ctx, g)
            if related_to is not None and self.draws.chance(RELATE_CHANCE):
                related = self._related(t, [values[i] for i in related_to])
                if related is not None:
                    value = related
            values.append(value)
        return tuple(values)

    def _related(self, t, same: list) -> Any:
        """Equal to an earlier binder of the same kind (``same``), or the sum or difference of two."""
        if isinstance(t, NumberType):
            same = [v for v in same if is_number(v) and math.isfinite(v)]
        if not same:
            return None
        a = self.draws.choice(same)
        if self.draws.chance(0.5):
            return a
        b = self.draws.choice(same)
        if isinstance(t, BigIntType):
            return BigInt(a.value + b.value if self.draws.chance(0.5) else a.value - b.value)
        return number(a + b if self.draws.chance(0.5) else a - b)

    def _words_ahead(self, state: tuple[int, int, int, int], count: int) -> Optional[tuple]:
        """The stream's next words made by the evaluator, or ``None`` (Python makes the same ones)."""
        try:
            return self.evaluator.words(state, count)
        except NodeError:
            return None

    def _pooled_string(self, guide: Guide) -> Optional[str]:
        pattern, flags = guide.patterns[self.draws.below(len(guide.patterns))]
        pool = self.pools.setdefault((pattern, flags), [])
        if not pool:
            candidates = sample_strings(pattern, flags, self.draws, POOL_SIZE, self.ctx.max_string_length)
            matches = self.evaluator.regex_matches(pattern, flags, candidates)
            pool.extend(reversed([c for c, ok in zip(candidates, matches) if ok]))
            if not pool:
                return None
        return pool.pop()

    # -- verdict --------------------------------------------------------------------

    def _finish(self) -> RungResult:
        prop, seed = self.prop, self.seed
        common = dict(evaluated=len(self.seen), draws=self.draw_count, edges=self.edge_count,
                      inputs=tuple(self.inputs))
        assumptions = (ASSUMPTIONS + length_assumptions(self.types, self.gens, self.ctx)
                       + sample_assumption(prop.sample) + overload_assumption(prop))
        drawn_by = [b.name for b, g in zip(prop.binders, self.gens) if g is not None]
        if drawn_by:
            assumptions += (f"{', '.join(drawn_by)} drawn from custom generators (inputs); the claim is over "
                            f"the parameter types",)
        if self.malformed is not None:
            got = self.malformed.message or "a non-boolean"
            return _unknown(prop, seed, UNSUPPORTED_REASON,
                            f"malformed property: {self.malformed.phase} returned {got}, not a boolean",
                            malformed=True, **common)
        if self.stopped is not None:
            assignment, outcome = self.stopped
            reason = UNSUPPORTED_REASON if outcome.kind == DIED else GAVE_UP
            return _unknown(prop, seed, reason,
                            f"on input {_show_call(prop, assignment)}: {outcome.describe()}; "
                            f"the evaluator was restarted", counts={TESTED: self.inside},
                            stopped=_stopped_data(prop, assignment, outcome), **common)
        if self.failure is not None:
            drawn, outcome = self.failure
            shrunk, shrunk_outcome, steps = self._shrink(drawn, outcome)
            counterexample = {
                "assignment": {b.name: encode(v) for b, v in zip(prop.binders, shrunk)},
                "args": [encode(v) for v in shrunk],
                "outcome": shrunk_outcome.to_data(),
                "drawn": [encode(v) for v in drawn],
                "shrinkSteps": steps,
            }
            verdict = SpecVerdict(kind=REFUTED, property=prop.name, rung=TESTED, seed=seed,
                                  counts={TESTED: self.inside}, counterexample=counterexample,
                                  assumptions=assumptions)
            return RungResult(verdict=verdict, **common)
        if self.evaluable == 0:
            return _unknown(prop, seed, UNSUPPORTED_REASON,
                            "the property could not be evaluated on any input (when threw on every one)",
                            malformed=True, **common)
        if self.inside == 0:
            return _unknown(prop, seed, GAVE_UP,
                            f"no input inside the claim after {common['draws']} draws", **common)
        if self._exhausted():
            size = len(self.enumeration) if self.enumerated and self.enumeration is not None else self.domain_size
            detail = f"the whole domain was evaluated ({size} input{'' if size == 1 else 's'})"
        else:
            detail = "" if self._enough() else f"only {self.inside} inputs inside the claim after {common['draws']} draws"
        verdict = SpecVerdict(kind=TESTED, property=prop.name, rung=TESTED, seed=seed,
                              counts={TESTED: self.inside}, assumptions=assumptions, detail=detail)
        return RungResult(verdict=verdict, target=self.max_inside, whole_domain=self._exhausted(), **common)

    # -- shrinking ------------------------------------------------------------------

    def _shrink(self, assignment: tuple, outcome: Outcome) -> tuple[tuple, Outcome, int]:
        """Binder by binder, to a fixed point: accept the first candidate that still fails."""
        tried = {_assignment_key(assignment)}
        budget = SHRINK_EVALUATIONS_MAX
        steps = 0
        improved = True
        while improved and budget > 0:
            improved = False
            for j, (t, g) in enumerate(zip(self.types, self.guides)):
                while budget > 0:
                    candidates = []
                    for value in domains.shrink(t, assignment[j], g):
                        if self.gens[j] is not None and not generators.admits(self.gens[j], value):
                            continue
                        candidate = assignment[:j] + (value,) + assignment[j + 1:]
                        k = _assignment_key(candidate)
                        if k in tried:
                            continue
                        tried.add(k)
                        candidates.append(candidate)
                        if len(candidates) >= min(budget, 64):
                            break
                    if not candidates:
                        break
                    budget -= len(candidates)
                    results = self.evaluator.evaluate(self.prop.name, candidates, limit_ms=self.limit_ms)
                    # A candidate with no answer is not a failure; the ones after it were not evaluated.
                    for unevaluated in candidates[len(results):]:
                        tried.discard(_assignment_key(unevaluated))
                    hit = next(((c, r) for c, r in zip(candidates, results) if r.fails), None)
                    if hit is None:
                        if len(candidates) < 64:
                            break
                        continue
                    assignment, outcome = hit
                    steps += 1
                    improved = True
        return assignment, outcome, steps


def _assignment_key(assignment: Sequence[Any]) -> str:
    return key([encode(v) for v in assignment])


class _Prepared(NamedTuple):
    """An assignment with its encoding and distinctness key, computed once."""

    assignment: tuple
    encoded: list
    key: str


def _prepared(assignment: tuple) -> _Prepared:
    encoded = [encode(v) for v in assignment]
    return _Prepared(assignment, encoded, key(encoded))
