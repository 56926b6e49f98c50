"""The CHECKED rung: a property evaluated on the calls the simulator recorded.

Each recorded call is a Core decision's payload, ``{"args": [...], "result": ...}``
with the arguments in the evaluator's value encoding (plain JSON for plain
values). Each distinct argument list is one assignment; one that fails
``when`` is discarded. A false claim, or an exception from ``ensures``, is
REFUTED with the call it came from; holding on at least one assignment is
CHECKED with the count; none is UNKNOWN (gave_up). ``total`` is UNKNOWN
(unsupported) here, since termination is not observable on samples.
"""

from __future__ import annotations

from typing import Sequence

from eutaxy.core.verdicts import CHECKED, GAVE_UP, REFUTED, UNKNOWN, UNSUPPORTED_REASON, SpecVerdict
from eutaxy.spec import ForallProperty, Property, TotalProperty

from .evaluator import MALFORMED, THREW, Evaluator
from .rung import RungResult
from .values import key

ASSUMPTIONS = ("the inputs are the calls the simulator made",)


def run_checked(prop: Property, evaluator: Evaluator, calls: Sequence[dict]) -> RungResult:
    """Run the CHECKED rung on ``calls`` (Core decision payloads ``{args, result}``)."""
    if isinstance(prop, TotalProperty):
        return _unknown(prop, UNSUPPORTED_REASON, "total claims termination, which no recorded call shows")
    assert isinstance(prop, ForallProperty), prop
    distinct: dict[str, dict] = {}
    for call in calls:
        args = call.get("args")
        if not isinstance(args, list):
            raise ValueError(f"a recorded call needs a list of args, got {call!r}")
        distinct.setdefault(key(args), call)
    ordered = list(distinct.values())
    if not ordered:
        return _unknown(prop, GAVE_UP, "the simulator made no call to the function")
    outcomes = evaluator.evaluate_encoded(prop.name, [c["args"] for c in ordered])
    inside = 0
    evaluable = 0
    for call, outcome in zip(ordered, outcomes):
        if outcome.kind == MALFORMED:
            return _unknown(prop, UNSUPPORTED_REASON,
                            f"malformed property: {outcome.phase} returned {outcome.message or 'a non-boolean'}, not a boolean",
                            malformed=True, evaluated=len(ordered))
        if outcome.kind == THREW and outcome.phase == "when":
            continue
        evaluable += 1
        if not outcome.inside:
            continue
        if outcome.fails:
            counterexample = {"call": {"args": call["args"], "result": call.get("result")},
                              "args": call["args"], "outcome": outcome.to_data()}
            verdict = SpecVerdict(kind=REFUTED, property=prop.name, rung=CHECKED,
                                  counts={CHECKED: inside}, counterexample=counterexample,
                                  assumptions=ASSUMPTIONS)
            return RungResult(verdict=verdict, evaluated=len(ordered), draws=len(calls))
        inside += 1
    if evaluable == 0:
        return _unknown(prop, UNSUPPORTED_REASON,
                        "the property could not be evaluated on any recorded call (when threw on every one)",
                        malformed=True, evaluated=len(ordered))
    if inside == 0:
        return _unknown(prop, GAVE_UP, f"none of the {len(ordered)} distinct recorded calls was inside the claim",
                        evaluated=len(ordered))
    verdict = SpecVerdict(kind=CHECKED, property=prop.name, rung=CHECKED, counts={CHECKED: inside},
                          assumptions=ASSUMPTIONS, detail=f"held on {inside} distinct recorded calls")
    return RungResult(verdict=verdict, evaluated=len(ordered), draws=len(calls))


def _unknown(prop: Property, reason: str, detail: str, *, malformed: bool = False, evaluated: int = 0) -> RungResult:
    verdict = SpecVerdict(kind=UNKNOWN, property=prop.name, rung=CHECKED, reasons=(reason,),
                          counts={CHECKED: 0}, detail=detail, assumptions=ASSUMPTIONS)
    return RungResult(verdict=verdict, malformed=malformed, evaluated=evaluated)


def recorded_calls(effects: Sequence[dict], function: str) -> list[dict]:
    """The payloads of ``Core:<function>`` decision effects, in log order."""
    target = f"Core:{function}"
    return [e["payload"] for e in effects
            if e.get("kind") == "decision" and e.get("target") == target and isinstance(e.get("payload"), dict)]


