"""The CHECKED rung: a property evaluated on the calls the simulator recorded.

Each recorded call is a Core decision's payload, ``{"args": [...], "result": ...}``
with the arguments in the evaluator's value encoding (plain JSON for plain
values). A runtime whose log keeps a canonical, lossy ``args``/``result`` (JSON's
reading: -0 as 0, NaN and undefined as null, a bigint list as a string) records
the exact reading beside it, ``argsExact``/``resultExact``, where the two differ,
and ``argsInexact`` (why) when the arguments hold a value the encoding cannot
carry; ``exact_reading`` gives the call CHECKED evaluates, or None for one it
cannot (it is no assignment). Each distinct argument list is one assignment; one that fails
``when`` is discarded. A false claim, or an exception from ``ensures``, is
REFUTED with the call it came from; holding on at least one assignment is
CHECKED with the count; none is UNKNOWN (gave_up). ``total`` is UNKNOWN
(unsupported) here, since termination is not observable on samples.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

from eutaxy.core.verdicts import CHECKED, GAVE_UP, REFUTED, UNKNOWN, UNSUPPORTED_REASON, SpecVerdict
from eutaxy.spec import ForallProperty, Property, TotalProperty
from eutaxy.spec.values import decode, key, show

from .evaluator import DIED, MALFORMED, THREW, Evaluator, limit_ms
from .rung import RungResult

ASSUMPTIONS = ("the inputs are the calls the simulator made",)


def exact_reading(call: Mapping[str, Any]) -> Optional[dict]:
    """A recorded call as CHECKED evaluates it: ``{args, result}``, exact where the payload says more.

    ``argsExact``/``resultExact`` replace the canonical ``args``/``result`` when present.
    None when the call gives no assignment: its arguments hold a value the value encoding
    cannot carry (``argsInexact``), or they are not a list.
    """
    if call.get("argsInexact") is not None:
        return None
    args = call["argsExact"] if "argsExact" in call else call.get("args")
    if not isinstance(args, list):
        return None
    return {"args": args, "result": call["resultExact"] if "resultExact" in call else call.get("result")}


def run_checked(prop: Property, evaluator: Evaluator, calls: Sequence[dict]) -> RungResult:
    """Run the CHECKED rung on ``calls`` (Core decision payloads ``{args, result}``, exact readings preferred)."""
    if isinstance(prop, TotalProperty):
        return _unknown(prop, UNSUPPORTED_REASON, "total claims termination, which no recorded call shows")
    assert isinstance(prop, ForallProperty), prop
    distinct: dict[str, dict] = {}
    for recorded in calls:
        call = exact_reading(recorded)
        if call is None:
            raise ValueError(f"a recorded call needs a list of args it can say exactly, got {recorded!r}")
        distinct.setdefault(key(call["args"]), call)
    ordered = list(distinct.values())
    if not ordered:
        return _unknown(prop, GAVE_UP, "the simulator made no call to the function")
    outcomes = evaluator.evaluate_encoded(prop.name, [c["args"] for c in ordered], limit_ms=limit_ms(prop))
    inside = 0
    evaluable = 0
    for call, outcome in zip(ordered, outcomes):
        if outcome.stopped:
            reason = UNSUPPORTED_REASON if outcome.kind == DIED else GAVE_UP
            return _unknown(prop, reason, f"on the recorded call {prop.function}({', '.join(show(decode(a)) for a in call['args'])}): "
                            f"{outcome.describe()}; the evaluator was restarted", evaluated=len(ordered))
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
    """The ``Core:<function>`` decisions of a log as CHECKED takes them (``exact_reading``), in log order.

    A decision that gives no assignment (see ``exact_reading``) is left out.
    """
    target = f"Core:{function}"
    readings = (exact_reading(e["payload"]) for e in effects
                if e.get("kind") == "decision" and e.get("target") == target and isinstance(e.get("payload"), dict))
    return [call for call in readings if call is not None]


