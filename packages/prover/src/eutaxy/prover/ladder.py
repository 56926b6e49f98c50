"""Ladder aggregation: the CHECKED and TESTED rungs, then any engines, folded into one verdict.

The rules, in the order they apply:

1. A property malformed at either sampling rung stays UNKNOWN (unsupported),
   whatever the other rung found: inputs that miss the fault do not make it sound.
2. A counterexample at either sampling rung is REFUTED, the simulator's
   (CHECKED) first, with its call.
3. Both rungs holding is TESTED, saying on how many simulator inputs it also
   held; TESTED alone (no recorded call) is TESTED; CHECKED with TESTED giving
   up is CHECKED, saying why it is not TESTED; neither deciding is one UNKNOWN
   naming both reasons.
4. Engines: one proving lifts the verdict to PROVEN with the lower rungs'
   counts kept; one refuting where nothing else did is REFUTED at the PROVEN
   rung; one proving and another refuting, or an engine proving against the
   simulator's counterexample, is CONFLICT (never resolved automatically); an
   engine that gave up, could not run or does not take the function leaves
   the verdict as it was, with why among the assumptions.
"""

from __future__ import annotations

from typing import Optional, Sequence

from eutaxy.core.verdicts import (CHECKED, CONFLICT, PROVEN, REFUTED, TESTED, UNKNOWN,
                                  SpecVerdict)

from .rung import RungResult


def _dedupe(items) -> tuple:
    return tuple(dict.fromkeys(items))


def fold_sampling(name: str, checked: Optional[RungResult], tested: Optional[RungResult]) -> SpecVerdict:
    """Rules 1 to 3: the verdict of the two sampling rungs."""
    rungs = [r for r in (checked, tested) if r is not None]
    assert rungs, "fold at least one rung"
    counts: dict = {}
    for r in rungs:
        counts.update(r.verdict.counts)
    seed = tested.verdict.seed if tested is not None else None
    assumptions = _dedupe(a for r in rungs for a in r.verdict.assumptions)
    for r in rungs:
        if r.malformed:
            return SpecVerdict(kind=UNKNOWN, property=name, rung=r.verdict.rung, reasons=r.verdict.reasons,
                               counts=counts, seed=seed, detail=r.verdict.detail, assumptions=assumptions)
    for r in rungs:
        if r.verdict.kind == REFUTED:
            v = r.verdict
            return SpecVerdict(kind=REFUTED, property=name, rung=v.rung, counts=counts,
                               counterexample=v.counterexample, seed=seed, assumptions=assumptions,
                               detail=v.detail)
    c_holds = checked is not None and checked.verdict.kind == CHECKED
    t_holds = tested is not None and tested.verdict.kind == TESTED
    if t_holds:
        detail = tested.verdict.detail
        if c_holds:
            also = f"also held on {checked.verdict.counts.get(CHECKED, 0)} of the simulator's inputs"
            detail = f"{detail}; {also}" if detail else also
        return SpecVerdict(kind=TESTED, property=name, rung=TESTED, counts=counts, seed=seed,
                           assumptions=assumptions, detail=detail)
    if c_holds:
        why = tested.verdict.detail if tested is not None else "the TESTED rung did not run"
        return SpecVerdict(kind=CHECKED, property=name, rung=CHECKED, counts=counts, seed=seed,
                           assumptions=assumptions, detail=f"{checked.verdict.detail}; not TESTED: {why}")
    reasons = _dedupe(reason for r in rungs for reason in r.verdict.reasons)
    detail = "; ".join(f"{r.verdict.rung}: {r.verdict.detail}" for r in rungs if r.verdict.detail)
    return SpecVerdict(kind=UNKNOWN, property=name, rung=None, reasons=reasons, counts=counts, seed=seed,
                       assumptions=assumptions, detail=detail)


def fold_engines(sampled: SpecVerdict, engines: Sequence[SpecVerdict], *, malformed: bool = False) -> SpecVerdict:
    """Rule 4: engines folded into the sampling verdict."""
    if malformed or not engines:
        return sampled
    proving = [e for e in engines if e.kind == PROVEN]
    refuting = [e for e in engines if e.kind == REFUTED]
    notes = tuple(f"engine {(e.engine or {}).get('name', '?')} did not decide: {e.detail or ', '.join(e.reasons)}"
                  for e in engines if e.kind not in (PROVEN, REFUTED))
    assumptions = _dedupe(sampled.assumptions + notes + tuple(a for e in proving + refuting for a in e.assumptions))
    base = dict(property=sampled.property, counts=dict(sampled.counts), seed=sampled.seed, assumptions=assumptions)
    if proving and (refuting or sampled.kind == REFUTED):
        against = refuting[0] if refuting else sampled
        detail = (f"engine {proving[0].engine.get('name')} proves it; "
                  f"{'engine ' + str((against.engine or {}).get('name')) if refuting else 'the ' + str(sampled.rung) + ' rung'} refutes it")
        return SpecVerdict(kind=CONFLICT, rung=PROVEN, engine=proving[0].engine,
                           counterexample=against.counterexample, detail=detail, **base)
    if proving:
        return SpecVerdict(kind=PROVEN, rung=PROVEN, engine=proving[0].engine, detail=sampled.detail, **base)
    if refuting and sampled.kind != REFUTED:
        e = refuting[0]
        return SpecVerdict(kind=REFUTED, rung=PROVEN, engine=e.engine, counterexample=e.counterexample,
                           detail=e.detail, **base)
    return SpecVerdict(kind=sampled.kind, rung=sampled.rung, engine=sampled.engine, reasons=sampled.reasons,
                       counterexample=sampled.counterexample, detail=sampled.detail, **base)


def aggregate(name: str, checked: Optional[RungResult], tested: Optional[RungResult],
              engines: Sequence[SpecVerdict] = ()) -> SpecVerdict:
    """The ladder's verdict for one property."""
    malformed = any(r is not None and r.malformed for r in (checked, tested))
    return fold_engines(fold_sampling(name, checked, tested), engines, malformed=malformed)
