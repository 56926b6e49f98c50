"""The fault model: which faults exist, which each kind of effect point admits, and the
one redelivery rule every platform (and the differential runner's raw side) calls.

Written once here so a proxy names a ladder instead of listing faults, and so no two
places can read a platform's retry limit differently.
"""

from __future__ import annotations

__all__ = [
    "AMBIGUOUS",
    "BACKGROUND_FAULTS",
    "BATCH_WRITE_FAULTS",
    "CALLEE_FAULTS",
    "CRASH_AFTER",
    "CRASH_BEFORE",
    "CUT_OFF",
    "DECISION_FAULTS",
    "ERROR",
    "FAULT_KINDS",
    "FAULT_MEANINGS",
    "PARTIAL",
    "POINT_FAULTS",
    "READ_FAULTS",
    "REDELIVERY",
    "RESPONSE_FAULTS",
    "RESPONSE_FAULTS_WITH_DEADLINE",
    "RUNTIME_LADDERS",
    "STEP_FAULTS",
    "STEP_RESULT_FAULTS",
    "WRITE_FAULTS",
    "REDELIVERY_CUT",
    "REDELIVERY_DEAD_LETTER",
    "may_redeliver",
    "redelivery_stop",
    "response_faults",
]

#: The effect never happens; the invocation dies (lost work, missing writes).
CRASH_BEFORE = "crash_before"
#: The effect happened; the invocation dies before continuing (duplicates on retry).
CRASH_AFTER = "crash_after"
#: The effect committed but the caller sees a timeout or error.
AMBIGUOUS = "ambiguous"
#: The effect fails cleanly with an error.
ERROR = "error"
#: A message or alarm is delivered again; a request is resent by its caller.
REDELIVERY = "redelivery"
#: The answer was sent; background work not yet started is lost.
CUT_OFF = "cut_off"
#: A batch write committed only its first part; the rest came back unprocessed, to retry.
PARTIAL = "partial"

FAULT_KINDS = (CRASH_BEFORE, CRASH_AFTER, AMBIGUOUS, ERROR, REDELIVERY, CUT_OFF, PARTIAL)

#: What each injected fault did, in a report reader's words.
FAULT_MEANINGS = {
    CRASH_BEFORE: "crashed before the effect: it did not happen",
    CRASH_AFTER: "crashed after the effect committed; the caller never saw the answer",
    AMBIGUOUS: "the effect committed but the caller got an ambiguous outcome",
    ERROR: "the effect failed with an error: it did not happen",
    REDELIVERY: "the event was delivered again",
    CUT_OFF: "background work was cut off",
    PARTIAL: "the batch wrote its first items only; the last half (rounded up, in request order) came back unprocessed",
}
assert set(FAULT_MEANINGS) == set(FAULT_KINDS), "every fault kind has its meaning"

#: A write, a call into another system or an outbound request.
WRITE_FAULTS = (CRASH_BEFORE, CRASH_AFTER, AMBIGUOUS, ERROR)
#: A read: nothing is lost when its answer is, so no ambiguous outcome.
READ_FAULTS = (CRASH_BEFORE, CRASH_AFTER, ERROR)
#: A decision the platform records for the invocation (an ack, a delete): crashes either side.
DECISION_FAULTS = (CRASH_BEFORE, CRASH_AFTER)
#: The response point: the answer the caller never received.
RESPONSE_FAULTS = (CRASH_BEFORE,)
#: The response point when the caller declares a deadline: also the late answer.
RESPONSE_FAULTS_WITH_DEADLINE = (CRASH_BEFORE, AMBIGUOUS)
#: The background point after an answer with waitUntil work pending.
BACKGROUND_FAULTS = (CUT_OFF,)
#: A Workflow step attempt's point before its callback: the instance restarts before the step runs.
STEP_FAULTS = (CRASH_BEFORE,)
#: A Workflow step attempt's point after its callback: the step ran and committed but its result
#: was not persisted (crash_after, so it runs again after the restart), or it ran but counts as
#: failed, as a timeout does (ambiguous, so it is retried).
STEP_RESULT_FAULTS = (CRASH_AFTER, AMBIGUOUS)

#: A call through a service binding to a Worker that runs for real (a callee): it never reached
#: the callee, the callee acted and the answer was lost, or the caller died after it; no clean
#: error of its own, since what the callee throws is real.
CALLEE_FAULTS = (CRASH_BEFORE, CRASH_AFTER, AMBIGUOUS)

#: A batch write that may answer with unprocessed items (DynamoDB BatchWriteItem): the write
#: ladder and the partial outcome.
BATCH_WRITE_FAULTS = (*WRITE_FAULTS, PARTIAL)

#: The ladders a platform's runtime takes by name, as vectors/ladders.json names them: the
#: Cloudflare load message carries them (``eutaxy.cloudflare.worker.LoadMessage.ladders``), so
#: the JavaScript runtime writes none down (runtime/effects.mjs ``ladderNamed``).
RUNTIME_LADDERS: dict[str, tuple[str, ...]] = {
    "write": WRITE_FAULTS,
    "read": READ_FAULTS,
    "decision": DECISION_FAULTS,
    "response": RESPONSE_FAULTS,
    "responseWithDeadline": RESPONSE_FAULTS_WITH_DEADLINE,
    "background": BACKGROUND_FAULTS,
    "step": STEP_FAULTS,
    "stepResult": STEP_RESULT_FAULTS,
    "callee": CALLEE_FAULTS,
}

#: The faults an injected point can take (redelivery is the delivery's, not a point's).
POINT_FAULTS = (CRASH_BEFORE, CRASH_AFTER, AMBIGUOUS, ERROR, CUT_OFF, PARTIAL)


def response_faults(has_deadline: bool) -> tuple[str, ...]:
    """The response point's ladder, which grows the ambiguous outcome with a deadline."""
    return RESPONSE_FAULTS_WITH_DEADLINE if has_deadline else RESPONSE_FAULTS


#: A redelivery the platform would make that the scenario's ``maxRedeliveries`` stops: a cut.
REDELIVERY_CUT = "cut"
#: The platform's own last delivery: the event is dead-lettered (or its caller gives up).
REDELIVERY_DEAD_LETTER = "dead_letter"


def redelivery_stop(attempts: int, platform_limit: int, max_redeliveries: int | None) -> str | None:
    """What happens to an event not handled after ``attempts`` deliveries.

    ``attempts`` is 1 after the first delivery, so ``attempts - 1`` redeliveries have
    happened. None: it is delivered again, while both the platform's own limit (Queues'
    max_retries, the caller's retries, SQS maxReceiveCount less the first delivery, the
    alarm retry limit) and the scenario's ``maxRedeliveries`` leave room (None: the scenario
    sets none, the platform's limit alone counts). ``REDELIVERY_DEAD_LETTER``: the platform's
    limit is spent, so the platform stops it. ``REDELIVERY_CUT``: the platform would deliver
    it again but the scenario's bound stops exploring there; the event is left undone, never
    dead-lettered (a cut, ``eutaxy.core.cuts``).
    """
    assert attempts >= 1, attempts
    redeliveries = attempts - 1
    if redeliveries >= platform_limit:
        return REDELIVERY_DEAD_LETTER
    if max_redeliveries is not None and redeliveries >= max_redeliveries:
        return REDELIVERY_CUT
    return None


def may_redeliver(attempts: int, platform_limit: int, max_redeliveries: int | None) -> bool:
    """Whether an event not handled after ``attempts`` deliveries is delivered again (``redelivery_stop`` is None)."""
    return redelivery_stop(attempts, platform_limit, max_redeliveries) is None
