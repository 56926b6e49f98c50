"""Effect points: a log's records grouped the way a reader (and a divergence) counts them.

A point records ``call`` then ``result`` and/or ``fault`` (docs/contract.md, "Effects");
they share invocation, ordinal and target. Anything else (a decision, a fault with no call
before it such as a redelivery) is a point of its own. The engine compares two runs point
by point (``eutaxy.engine.explain``) and the reports print one line per point, so the
grouping, the invocation label and what an injected fault names are written once, here.
"""

from __future__ import annotations

from typing import Iterable

from eutaxy.core.canonical import to_json
from eutaxy.core.effects import CALL, FAULT, RESULT, SNAPSHOT, Effect
from eutaxy.core.faults import FAULT_MEANINGS

__all__ = ["effect_points", "fault_name", "fault_text", "group_points", "invocation_label"]


def group_points(indexed: Iterable[tuple[int, Effect]]) -> list[list[tuple[int, Effect]]]:
    """Group ``(log index, effect)`` pairs into points, keeping each record's index.

    The caller leaves snapshots out; a call takes the result and the one fault that follow
    it at the same point, and a record after its point's fault starts a new point.
    """
    groups: list[list[tuple[int, Effect]]] = []
    for index, effect in indexed:
        if effect.kind in (RESULT, FAULT) and groups:
            head = groups[-1][0][1]
            if head.kind == CALL and _same_point(head, effect) and not any(e.kind == FAULT for _, e in groups[-1]):
                groups[-1].append((index, effect))
                continue
        groups.append([(index, effect)])
    return groups


def effect_points(effects: Iterable[Effect]) -> list[list[Effect]]:
    """The log's effect points in order, snapshots (the state after the run) left out."""
    live = [(index, effect) for index, effect in enumerate(effects) if effect.kind != SNAPSHOT]
    return [[effect for _, effect in group] for group in group_points(live)]


def _same_point(a: Effect, b: Effect) -> bool:
    return (a.invocation, a.ordinal, a.target) == (b.invocation, b.ordinal, b.target)


def fault_name(effect: Effect) -> str:
    """The fault a ``fault`` record injected (its payload's ``fault``; a redelivery names it as its op)."""
    payload = effect.payload if isinstance(effect.payload, dict) else {}
    return str(payload.get("fault") or effect.op or "fault")


def fault_text(effect: Effect) -> str:
    """``!! crash_after (crashed after the effect committed; ...)``; a ``partial`` fault also
    names what it left undone (``left: {"UnprocessedItems": ...}``)."""
    fault = fault_name(effect)
    meaning = FAULT_MEANINGS.get(fault)
    text = f"!! {fault}" + (f" ({meaning})" if meaning else "")
    payload = effect.payload if isinstance(effect.payload, dict) else {}
    if "left" in payload:
        text += f"; left: {to_json(payload['left'])}"
    return text


def invocation_label(invocation: str, started_ms: int | None = None) -> str:
    """``msg-1#2 (redelivery)``; with the start time, ``msg-1#2 (redelivery, at +30 s)``.

    An object's work after its answer (``DO:<binding>/<object>/after``, the runtime's
    after_work.mjs) numbers the object's instances, not attempts: ``/after#2`` is the work of
    the instance after a crash reset the object, never a redelivery.
    """
    notes = []
    event, _, attempt = str(invocation).rpartition("#")
    if event and attempt.isdigit() and int(attempt) > 1:
        notes.append("after a reset" if event.endswith("/after") else "redelivery")
    if started_ms is not None:
        notes.append("at +" + (f"{started_ms // 1000} s" if started_ms % 1000 == 0 else f"{started_ms / 1000:.3f} s"))
    return f"{invocation} ({', '.join(notes)})" if notes else str(invocation)
