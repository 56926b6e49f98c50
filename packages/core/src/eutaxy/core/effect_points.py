"""Effect points: a log's records grouped the way a reader (and a divergence) counts them.

A point records ``call`` then ``result`` and/or ``fault`` (docs/contract.md, "Effects");
they share invocation, ordinal and target. Anything else (a decision, a fault with no call
before it such as a redelivery) is a point of its own. The engine compares two runs point
by point (``eutaxy.engine.explain``) and the reports print one line per point, so the
grouping, the invocation label and what an injected fault names are written once, here.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from eutaxy.core.canonical import to_json
from eutaxy.core.effects import CALL, FAULT, RESULT, SNAPSHOT, Effect
from eutaxy.core.faults import CRASH_BEFORE, FAULT_MEANINGS

__all__ = ["ATTEMPT_WORDS", "effect_points", "fault_name", "fault_text", "group_points", "invocation_label", "seconds_text"]


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


def fault_text(effect: Effect, before: Sequence[str] | None = None) -> str:
    """``!! crash_after (crashed after the effect committed; ...)``; a ``partial`` fault also
    names what it left undone (``left: {"UnprocessedItems": ...}``).

    ``before`` names the points the invocation passed before this one (``#0 D1:DB run``), when
    known: a ``crash_before`` then says what of the invocation stands, since the crash kept
    only this effect and the ones after it from happening.
    """
    fault = fault_name(effect)
    meaning = FAULT_MEANINGS.get(fault)
    if meaning and fault == CRASH_BEFORE and before is not None:
        meaning += ("; what the invocation did before it stands: " + ", ".join(before)) if before else (
            ", and the invocation had done nothing before it")
    text = f"!! {fault}" + (f" ({meaning})" if meaning else "")
    payload = effect.payload if isinstance(effect.payload, dict) else {}
    if "left" in payload:
        text += f"; left: {to_json(payload['left'])}"
    return text


#: What a later attempt of an invocation is, by the drive that delivered it: a queue or SQS
#: message comes again (``redelivery``), an inbound request or rpc call is sent again by its
#: caller (``resend``), an alarm runs again after it failed (``retry``), a Workflow instance runs
#: again from the start after a crash (``restart``), a failed cron tick runs again (``re-run``).
ATTEMPT_WORDS = {
    "http": "resend", "rpc": "resend", "websocket": "resend", "queue": "redelivery", "sqs": "redelivery", "alarm": "retry",
    "workflow": "restart", "cron": "re-run", "callee": "another call",
}


def invocation_label(invocation: str, started_ms: int | None = None, drive: str | None = None) -> str:
    """``msg-1#2 (redelivery)``; with the start time, ``msg-1#2 (redelivery, at +30 s)``.

    ``drive`` is the kind of event the invocation delivered (its outcome record's ``drive``):
    a second attempt of an inbound request is a ``resend`` (``req-1#2 (resend)``), of a
    message a ``redelivery``, of an alarm (``.../alarm.1#2``) a ``retry``; with no drive
    known, a redelivery. An object's work after its answer
    (``DO:<binding>/<object>/after``, the runtime's after_work.mjs) numbers the object's
    instances, not attempts: ``/after#2`` is the work of the instance after a crash reset the
    object, never a redelivery.
    """
    notes = []
    event, _, attempt = str(invocation).rpartition("#")
    if event and attempt.isdigit() and int(attempt) > 1:
        notes.append(_attempt_word(event, drive))
    if started_ms is not None:
        notes.append("at " + seconds_text(started_ms))
    return f"{invocation} ({', '.join(notes)})" if notes else str(invocation)


def _attempt_word(event: str, drive: str | None) -> str:
    if event.endswith("/after"):
        return "after a reset"
    if "/alarm." in event:
        return "retry"
    return ATTEMPT_WORDS.get(drive or "", "redelivery")


def seconds_text(offset_ms: int) -> str:
    """A virtual-time offset as the reports write every time: ``+30 s``, ``+1.500 s``, ``-2 s``."""
    sign = "-" if offset_ms < 0 else "+"
    magnitude = abs(offset_ms)
    return sign + (f"{magnitude // 1000} s" if magnitude % 1000 == 0 else f"{magnitude / 1000:.3f} s")
