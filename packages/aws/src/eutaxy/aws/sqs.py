"""The SQS event source's delivery model, as AWS documents it for Lambda.

Messages are delivered one at a time, in the drive's order, one record per invocation
(``batchSize`` 1), each attempt its own invocation ``msg-1#<attempt>``:

- the handler gets the SQS event shape (``Records`` with ``messageId``, ``receiptHandle``,
  ``body`` as the JSON text of the event's body, ``attributes.ApproximateReceiveCount``, …)
  and a Lambda context whose request id and clock are virtual;
- a return without a ``batchItemFailures`` entry for the message deletes it: the implicit
  delete is an effect point ``SQS:<queue>`` op ``delete`` taking the decision faults, so a
  crash lands between "handled" and "deleted" (crash_before: not deleted, delivered again;
  crash_after: deleted, the invocation dies);
- a raised error, a crash or a reported batch item failure leaves the message to be
  received again (recorded as ``SQS:<queue>`` op ``retry``, implicit, with the reason and
  the error's type; it takes no fault) while ``may_redeliver`` allows (``maxReceiveCount`` less the first
  delivery, and the scenario's ``maxRedeliveries``); after ``maxReceiveCount`` receives it
  is moved to the dead-letter queue, recorded as ``SQS:<queue>`` op ``dead_letter``.

When the scenario's ``maxRedeliveries`` stops delivery before ``maxReceiveCount`` does,
nothing more is recorded: the message would still be in the queue, beyond the bound.
"""

from __future__ import annotations

import hashlib
import uuid
from typing import Any, Callable, Mapping

import attrs

from eutaxy.core.canonical import to_json
from eutaxy.core.effects import VIRTUAL_EPOCH_MS, invocation_id
from eutaxy.core.faults import DECISION_FAULTS, may_redeliver
from eutaxy.engine.runloop import CallOutcome, Invocation, InvocationCrash, RunLoop

from eutaxy.aws.local import LOCAL_REGION

__all__ = ["DEFAULT_MAX_RECEIVE_COUNT", "DEFAULT_TIMEOUT_MS", "LambdaContext", "deliver_queue", "sqs_event"]

#: AWS asks for a redrive policy's maxReceiveCount of at least 5 on a Lambda event source
#: queue, so a message survives a few throttled or failed batches before it is moved.
DEFAULT_MAX_RECEIVE_COUNT = 5
#: Lambda's default function timeout.
DEFAULT_TIMEOUT_MS = 3000
#: The account every simulated ARN names.
ACCOUNT_ID = "000000000000"


def body_text(body: Any) -> str:
    """An SQS body is text; an event's plain-data body is sent as its canonical JSON."""
    return body if isinstance(body, str) else to_json(body)


def sqs_event(queue: str, event: Mapping[str, Any], attempt: int, first_receive_ms: int) -> dict[str, Any]:
    """The event Lambda passes for one received message (one record)."""
    text = body_text(event.get("body"))
    message_id = str(event["id"])
    receipt = hashlib.sha256(f"{queue}/{message_id}/{attempt}".encode()).hexdigest()
    return {
        "Records": [
            {
                "messageId": message_id,
                "receiptHandle": receipt,
                "body": text,
                "attributes": {
                    "ApproximateReceiveCount": str(attempt),
                    "SentTimestamp": str(VIRTUAL_EPOCH_MS),
                    "SenderId": "AIDAEUTAXYSIMULATOR",
                    "ApproximateFirstReceiveTimestamp": str(first_receive_ms),
                },
                "messageAttributes": dict(event.get("messageAttributes") or {}),
                "md5OfBody": hashlib.md5(text.encode("utf-8")).hexdigest(),  # noqa: S324 (SQS's own digest)
                "eventSource": "aws:sqs",
                "eventSourceARN": f"arn:aws:sqs:{LOCAL_REGION}:{ACCOUNT_ID}:{queue}",
                "awsRegion": LOCAL_REGION,
            }
        ]
    }


@attrs.define(eq=False)
class LambdaContext:
    """The Lambda context object, with a virtual request id and a virtual clock."""

    function_name: str
    aws_request_id: str
    timeout_ms: int
    _loop: RunLoop
    _invocation: Invocation
    function_version: str = "$LATEST"
    memory_limit_in_mb: str = "128"
    identity: Any = None
    client_context: Any = None

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:{LOCAL_REGION}:{ACCOUNT_ID}:function:{self.function_name}"

    @property
    def log_group_name(self) -> str:
        return f"/aws/lambda/{self.function_name}"

    @property
    def log_stream_name(self) -> str:
        return f"2026/01/01/[$LATEST]{self.aws_request_id.replace('-', '')}"

    def get_remaining_time_in_millis(self) -> int:
        spent = self._loop.now_ms - self._invocation.started_ms
        return max(0, self.timeout_ms - spent)


def request_id(seed: str, invocation: str) -> str:
    """A request id fixed by the seed and the invocation, so it never draws on the handler's stream."""
    digest = hashlib.sha256(f"{seed}/request/{invocation}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def _reports_failure(value: Any, message_id: str) -> bool:
    """Whether the handler's answer lists the message in ``batchItemFailures``."""
    if not isinstance(value, Mapping):
        return False
    failures = value.get("batchItemFailures")
    if not isinstance(failures, (list, tuple)):
        return False
    return any(isinstance(entry, Mapping) and str(entry.get("itemIdentifier")) == message_id for entry in failures)


def deliver_queue(
    loop: RunLoop,
    drive: Mapping[str, Any],
    *,
    max_redeliveries: int,
    handler: Callable[[Any, Any], Any],
    seed: str,
    function_name: str,
    timeout_ms: int,
) -> None:
    """Deliver every event of the sqs drive, with redeliveries, under ``loop``."""
    queue = drive["name"]
    target = f"SQS:{queue}"
    max_receive_count = int(drive.get("maxReceiveCount") or DEFAULT_MAX_RECEIVE_COUNT)
    for event in drive.get("events") or ():
        message_id = str(event["id"])
        first_receive_ms = loop.now_ms
        # A bound: may_redeliver stops at maxReceiveCount receives at the latest.
        for attempt in range(1, max_receive_count + 1):
            invocation = invocation_id(message_id, attempt)
            with loop.invocation(invocation) as current:
                context = LambdaContext(
                    function_name=function_name,
                    aws_request_id=request_id(seed, invocation),
                    timeout_ms=timeout_ms,
                    loop=loop,
                    invocation=current,
                )
                outcome = loop.call(handler, sqs_event(queue, event, attempt, first_receive_ms), context)
                handled = outcome.kind == "returned" and not _reports_failure(outcome.value, message_id)
                if handled:
                    handled = _delete(loop, target, message_id, event.get("body"))
                if handled:
                    break
                loop.platform_effect(target, "retry", _retry_args(message_id, outcome, event.get("body")), {"released": True})
                if may_redeliver(attempt, max_receive_count - 1, max_redeliveries):
                    continue
                if attempt >= max_receive_count:
                    loop.platform_effect(
                        target,
                        "dead_letter",
                        {"messageId": message_id, "attempts": attempt},
                        {"deadLettered": True},
                    )
                break


def _retry_args(message_id: str, outcome: CallOutcome, body: Any) -> dict[str, Any]:
    """Why the message stays in the queue: the handler's error, a reported failure, a crash.

    Only the error's type is kept: its text may hold an address or a time, which would
    make two runs of one plan differ.
    """
    if outcome.kind == "crashed":
        reason, error = "crashed", None
    elif outcome.kind == "raised":
        reason, error = "error", type(outcome.error).__name__
    elif outcome.kind == "returned" and _reports_failure(outcome.value, message_id):
        reason, error = "batch_item_failure", None
    else:
        reason, error = "not_deleted", None  # handled, but a crash hit the delete first
    args: dict[str, Any] = {"messageId": message_id, "body": body, "implicit": True, "reason": reason}
    if error is not None:
        args["error"] = error
    return args


def _delete(loop: RunLoop, target: str, message_id: str, body: Any) -> bool:
    """The implicit delete after a successful invocation; whether the message was deleted."""
    deleted = False

    def perform() -> tuple[Any, Any]:
        nonlocal deleted
        deleted = True
        return {"deleted": True}, None

    args = {"messageId": message_id, "body": body, "implicit": True}
    try:
        loop.effect_point(target, "delete", args, DECISION_FAULTS, perform)
    except InvocationCrash:
        # crash_before: never deleted, so received again; crash_after: deleted, and the
        # invocation's death changes nothing more.
        pass
    return deleted
