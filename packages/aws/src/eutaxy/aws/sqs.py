"""The SQS event source's delivery model, as AWS documents it for Lambda, in virtual time.

A queue holds messages, each visible from a virtual time on: the run's start plus its
delivery delay. The event source polls: it takes up to ``batchSize`` visible messages
(waiting up to the batching window for a fuller batch) and invokes the handler once per
batch, the invocation ``<first message>#<its receive count>`` (``msg-1#2``). A poll of two
or more may take only the first ``k`` of them when the plan's batch decision says so (a
short batch, as a poll that returns before the batch fills; at most the plan's
``maxShortBatches`` per run, ``eutaxy.engine.follower``); the rest wait for the next poll.
Then:

- a return deletes every message of the batch, except, when ReportBatchItemFailures is on,
  those its answer lists in ``batchItemFailures`` (an answer naming no message of the batch,
  or an entry without ``itemIdentifier``, fails the whole batch, as Lambda treats it). Each
  delete is an implicit effect point ``SQS:<queue>`` op ``delete`` taking the decision
  faults, so a crash lands between "handled" and "deleted";
- a raised error, a crash or a timeout returns the whole batch. The handler runs under its
  function timeout as Lambda runs it (``RunLoop.invocation``'s ``timeout_ms``: virtual time
  plus the handler's own CPU time); past it the invocation is stopped and counts as failed,
  with reason ``timed_out``. A message that is not deleted is
  recorded as ``SQS:<queue>`` op ``retry`` (implicit, with the reason; it takes no fault)
  and becomes visible again when its visibility timeout, counted from the receive, ends,
  so virtual time passes between redeliveries as it does on AWS. It is received again while
  ``redelivery_stop`` allows (``maxReceiveCount`` less the first delivery, and the scenario's
  ``maxRedeliveries`` when it sets one); after ``maxReceiveCount`` receives it is moved to the
  dead-letter queue, recorded as ``SQS:<queue>`` op ``dead_letter``. When ``maxRedeliveries``
  stops it first, the run records a cut (``eutaxy.core.cuts``): the message would still be in
  the queue, left undone beyond the bound, and on a FIFO queue the rest of its group with it.

A FIFO queue (its name ends in ``.fifo``) delivers each message group in order: a group
whose oldest message is in flight or waiting out its visibility timeout is blocked, so a
failed message holds back the rest of its group until it succeeds or is dead-lettered.
A message sent with the deduplication id of one sent within the last five minutes is
accepted and never delivered (content-based deduplication takes the body's SHA-256).

The queue is also where the handler's own ``SendMessage`` to a driven queue lands
(``SqsQueue.send``): the message is delivered later in the run like any other.
"""

from __future__ import annotations

import base64
import hashlib
import struct
import uuid
from typing import Any, Callable, Iterable, Mapping, Sequence

import attrs

from eutaxy.core.canonical import to_json
from eutaxy.core.effects import invocation_id
from eutaxy.core.errors import UserError, error_message
from eutaxy.core.cuts import MAX_REDELIVERIES, Cut
from eutaxy.core.faults import DECISION_FAULTS, REDELIVERY_DEAD_LETTER, redelivery_stop
from eutaxy.engine.runloop import CallOutcome, HandlerExit, Invocation, InvocationCrash, RunLoop
from eutaxy.engine.scenario import EVENT_TIME_FIELD, default_event_id

from eutaxy.aws.local import LOCAL_REGION, MOTO_ACCOUNT_ID

__all__ = [
    "ACCOUNT_ID",
    "BATCH_SIZE_DEFAULT",
    "MAX_RECEIVE_COUNT_DEFAULT",
    "TIMEOUT_MS_DEFAULT",
    "TIMEOUT_MS_MAX",
    "VISIBILITY_TIMEOUT_S_DEFAULT",
    "LambdaContext",
    "QueueSettings",
    "SqsQueue",
    "deduplication_id",
    "deliver_queue",
    "message_attribute",
    "queue_url",
]

#: AWS asks for a redrive policy's maxReceiveCount of at least 5 on a Lambda event source
#: queue, so a message survives a few throttled or failed batches before it is moved.
MAX_RECEIVE_COUNT_DEFAULT = 5
#: Lambda's default function timeout.
TIMEOUT_MS_DEFAULT = 3000
#: The longest function timeout Lambda accepts (15 minutes).
TIMEOUT_MS_MAX = 900_000
#: SQS's default visibility timeout.
VISIBILITY_TIMEOUT_S_DEFAULT = 30
#: How long SQS remembers a FIFO deduplication id.
DEDUPLICATION_INTERVAL_MS = 5 * 60 * 1000
#: The account every simulated ARN names.
ACCOUNT_ID = MOTO_ACCOUNT_ID
#: An SQS event source mapping's batch size when the scenario names none: Lambda's default
#: (the CreateEventSourceMapping reference gives 10 for Amazon SQS).
BATCH_SIZE_DEFAULT = 10
#: Batch sizes the event source mapping accepts.
BATCH_SIZE_FIFO_MAX = 10
BATCH_SIZE_STANDARD_MAX = 10_000
BATCHING_WINDOW_S_MAX = 300
DELAY_S_MAX = 900
VISIBILITY_TIMEOUT_S_MAX = 43_200


def body_text(body: Any) -> str:
    """An SQS body is text; an event's plain-data body is sent as its canonical JSON."""
    return body if isinstance(body, str) else to_json(body)


def queue_url(queue: str) -> str:
    return f"https://sqs.{LOCAL_REGION}.amazonaws.com/{ACCOUNT_ID}/{queue}"


def queue_arn(queue: str) -> str:
    return f"arn:aws:sqs:{LOCAL_REGION}:{ACCOUNT_ID}:{queue}"


# --- settings ---------------------------------------------------------------------------


@attrs.frozen
class QueueSettings:
    """A driven queue's configuration and its event source mapping's, in milliseconds."""

    name: str
    fifo: bool
    visibility_ms: int
    delay_ms: int
    max_receive_count: int
    batch_size: int
    window_ms: int
    report_failures: bool
    content_deduplication: bool

    @classmethod
    def of(cls, drive: Mapping[str, Any]) -> "QueueSettings":
        name = str(drive["name"])
        return cls(
            name=name,
            fifo=bool(drive.get("fifo", name.endswith(".fifo"))),
            visibility_ms=int(drive.get("visibilityTimeoutSeconds", VISIBILITY_TIMEOUT_S_DEFAULT)) * 1000,
            delay_ms=int(drive.get("delaySeconds", 0)) * 1000,
            max_receive_count=int(drive.get("maxReceiveCount") or MAX_RECEIVE_COUNT_DEFAULT),
            batch_size=int(drive.get("batchSize", BATCH_SIZE_DEFAULT)),
            window_ms=int(drive.get("maximumBatchingWindowSeconds", 0)) * 1000,
            report_failures=bool(drive.get("reportBatchItemFailures", True)),
            content_deduplication=bool(drive.get("contentBasedDeduplication", False)),
        )


def validate_drive(drive: Mapping[str, Any], timeout_ms: int, where: str) -> None:
    """Refuse a queue configuration AWS refuses; ``where`` names the scenario in the message."""
    settings = QueueSettings.of(drive)
    if settings.fifo != settings.name.endswith(".fifo"):
        raise UserError(f"{where}: a FIFO queue's name must end in .fifo, and only a FIFO queue's may; got {settings.name!r}")
    if settings.visibility_ms < timeout_ms:
        raise UserError(
            f"{where}: queue {settings.name}'s visibility timeout ({settings.visibility_ms // 1000} s) is below the "
            f"function timeout ({timeout_ms} ms); AWS refuses such an event source mapping (set "
            f"visibility_timeout_s to at least the function timeout; AWS recommends six times it)"
        )
    if settings.fifo:
        if settings.batch_size > BATCH_SIZE_FIFO_MAX:
            raise UserError(f"{where}: a FIFO queue's batch_size is at most {BATCH_SIZE_FIFO_MAX}, got {settings.batch_size}")
        if settings.window_ms:
            raise UserError(f"{where}: a FIFO queue's event source takes no batching window")
    elif settings.batch_size > BATCH_SIZE_STANDARD_MAX:
        raise UserError(f"{where}: batch_size is at most {BATCH_SIZE_STANDARD_MAX}, got {settings.batch_size}")
    elif settings.batch_size > 10 and settings.window_ms < 1000:
        raise UserError(f"{where}: a batch_size above 10 needs a batching window of at least 1 s (AWS requires it)")
    for event in drive.get("events") or ():
        if settings.fifo and not event.get("groupId"):
            raise UserError(f"{where}: message {event.get('id')} on FIFO queue {settings.name} has no group id")
        if settings.fifo and "delaySeconds" in event:
            raise UserError(f"{where}: message {event.get('id')}: FIFO queues take no per-message delay")


def deduplication_id(settings: QueueSettings, body: str, given: str | None, where: str) -> str | None:
    """A FIFO message's deduplication id: the one given, else the body's SHA-256 if content-based."""
    if not settings.fifo:
        return None
    if given:
        return str(given)
    if settings.content_deduplication:
        return hashlib.sha256(body.encode("utf-8")).hexdigest()
    raise UserError(
        f"{where}: FIFO queue {settings.name} needs a deduplication id for every message, or "
        f"content_based_deduplication=True"
    )


# --- message attributes -----------------------------------------------------------------


def message_attribute(value: Any) -> dict[str, Any]:
    """A message attribute as the Lambda event carries it: text for String and Number, base64 for Binary.

    ``value`` is a str (String), an int or float (Number), bytes (Binary), or a mapping with
    ``dataType`` and ``stringValue`` or ``binaryValue`` (for custom types such as ``Number.int``;
    the SDK's ``DataType``/``StringValue``/``BinaryValue`` spelling too).
    """
    if isinstance(value, Mapping):
        data_type = str(value.get("dataType") or value.get("DataType") or "")
        if data_type.split(".")[0] not in ("String", "Number", "Binary"):
            raise UserError(f"a message attribute's dataType must be String, Number or Binary (.suffix), got {value!r}")
        entry = {"dataType": data_type, "stringListValues": [], "binaryListValues": []}
        if data_type.startswith("Binary"):
            binary = value.get("binaryValue") or value.get("BinaryValue") or ""
            if isinstance(binary, (bytes, bytearray)):  # as an SDK call passes it
                binary = base64.b64encode(bytes(binary)).decode("ascii")
            entry["binaryValue"] = str(binary)
        else:
            entry["stringValue"] = str(value.get("stringValue") or value.get("StringValue") or "")
        return entry
    if isinstance(value, bool):
        raise UserError("a message attribute cannot be a boolean; use the text 'true' or 'false'")
    if isinstance(value, str):
        return message_attribute({"dataType": "String", "stringValue": value})
    if isinstance(value, (int, float)):
        return message_attribute({"dataType": "Number", "stringValue": str(value)})
    if isinstance(value, (bytes, bytearray)):
        return message_attribute({"dataType": "Binary", "binaryValue": base64.b64encode(bytes(value)).decode("ascii")})
    raise UserError(f"a message attribute is text, a number, bytes or a typed mapping, got {type(value).__name__}")


def attributes_md5(attributes: Mapping[str, Mapping[str, Any]]) -> str | None:
    """SQS's MD5 of message attributes (names sorted; each part length-prefixed)."""
    if not attributes:
        return None
    digest = hashlib.md5()  # noqa: S324 (SQS's own digest)

    def part(data: bytes) -> None:
        digest.update(struct.pack(">I", len(data)) + data)

    for name in sorted(attributes):
        entry = attributes[name]
        part(name.encode("utf-8"))
        part(str(entry["dataType"]).encode("utf-8"))
        if "binaryValue" in entry:
            digest.update(b"\x02")
            part(base64.b64decode(entry["binaryValue"]))
        else:
            digest.update(b"\x01")
            part(str(entry.get("stringValue", "")).encode("utf-8"))
    return digest.hexdigest()


# --- the queue --------------------------------------------------------------------------


@attrs.define(eq=False)
class _Message:
    event: dict[str, Any]
    sequence: int
    sent_ms: int
    visible_ms: int
    deduplication: str | None
    receives: int = 0
    first_receive_ms: int | None = None

    @property
    def id(self) -> str:
        return str(self.event["id"])

    @property
    def group(self) -> str | None:
        group = self.event.get("groupId")
        return None if group is None else str(group)


@attrs.define(eq=False)
class SqsQueue:
    """One driven queue in one run: its messages, their visibility, the blocked FIFO groups."""

    settings: QueueSettings
    pending: list[_Message] = attrs.Factory(list)
    #: Groups held back for good: their oldest message was cut by maxRedeliveries.
    stalled: set[str] = attrs.Factory(set)
    #: Deduplication id -> when it was last accepted.
    _seen: dict[str, int] = attrs.Factory(dict)
    _sequence: int = 0
    _sent: int = 0

    def send(self, event: Mapping[str, Any], now_ms: int, *, where: str) -> tuple[_Message | None, str | None]:
        """Accept a message; returns it (None when deduplicated) and its deduplication id."""
        body = body_text(event.get("body"))
        dedup = deduplication_id(self.settings, body, event.get("deduplicationId"), where)
        self._sent += 1
        if dedup is not None:
            accepted = self._seen.get(dedup)
            if accepted is not None and now_ms - accepted < DEDUPLICATION_INTERVAL_MS:
                return None, dedup
            self._seen[dedup] = now_ms
        self._sequence += 1
        delay_ms = int(event["delaySeconds"]) * 1000 if "delaySeconds" in event else self.settings.delay_ms
        message = _Message(
            event=dict(event), sequence=self._sequence, sent_ms=now_ms, visible_ms=now_ms + delay_ms, deduplication=dedup
        )
        self.pending.append(message)
        return message, dedup

    def _eligible(self, at_ms: int) -> list[_Message]:
        """The batch a poll at ``at_ms`` would take: visible messages in order, FIFO groups in order."""
        blocked = set(self.stalled)
        chosen: list[_Message] = []
        for message in self.pending:
            if len(chosen) == self.settings.batch_size:
                break
            group = message.group if self.settings.fifo else None
            if group is not None and group in blocked:
                continue
            if message.visible_ms <= at_ms:
                chosen.append(message)
            elif group is not None:
                blocked.add(group)
        return chosen

    def next_batch(self, now_ms: int) -> tuple[list[_Message], int] | None:
        """The next batch and the virtual time it is invoked at, or None when nothing is left."""
        times = sorted({now_ms, *(m.visible_ms for m in self.pending if m.visible_ms > now_ms)})
        start = next((at for at in times if self._eligible(at)), None)
        if start is None:
            return None
        batch = self._eligible(start)
        if len(batch) < self.settings.batch_size and self.settings.window_ms:
            # The event source waits up to the batching window for a fuller batch.
            deadline = start + self.settings.window_ms
            for at in [t for t in times if start < t <= deadline] + [deadline]:
                batch, start = self._eligible(at), at
                if len(batch) == self.settings.batch_size:
                    break
        return batch, start

    def remove(self, message: _Message) -> None:
        self.pending.remove(message)

    def record(self, message: _Message) -> dict[str, Any]:
        """The event record Lambda passes for one received message."""
        event = message.event
        text = body_text(event.get("body"))
        attributes = {
            "ApproximateReceiveCount": str(message.receives),
            "SentTimestamp": str(message.sent_ms),
            "SenderId": "AIDAEUTAXYSIMULATOR",
            "ApproximateFirstReceiveTimestamp": str(message.first_receive_ms),
        }
        if self.settings.fifo:
            attributes["SequenceNumber"] = str(10**19 + message.sequence)
            attributes["MessageGroupId"] = str(event["groupId"])
            attributes["MessageDeduplicationId"] = str(message.deduplication)
        attributes.update({str(k): str(v) for k, v in (event.get("attributes") or {}).items()})
        message_attributes = {str(k): dict(v) for k, v in (event.get("messageAttributes") or {}).items()}
        name = self.settings.name
        return {
            "messageId": message.id,
            "receiptHandle": hashlib.sha256(f"{name}/{message.id}/{message.receives}".encode()).hexdigest(),
            "body": text,
            "attributes": attributes,
            "messageAttributes": message_attributes,
            "md5OfMessageAttributes": attributes_md5(message_attributes),
            "md5OfBody": hashlib.md5(text.encode("utf-8")).hexdigest(),  # noqa: S324 (SQS's own digest)
            "eventSource": "aws:sqs",
            "eventSourceARN": queue_arn(name),
            "awsRegion": LOCAL_REGION,
        }


# --- the Lambda context -----------------------------------------------------------------


@attrs.define(eq=False)
class LambdaContext:
    """The Lambda context object, with a virtual request id and a virtual clock."""

    function_name: str
    aws_request_id: str
    #: The function's timeout; the deadline is the invocation's start plus it.
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


# --- delivery ---------------------------------------------------------------------------

#: Every message of the batch failed (an error, a crash, an invalid partial-batch answer).
_ALL = None


def _failed_ids(settings: QueueSettings, outcome: CallOutcome, ids: Sequence[str]) -> set[str] | None:
    """Which messages of the batch stay in the queue (``_ALL``: the whole batch)."""
    if outcome.kind != "returned":
        return _ALL
    if not settings.report_failures or not isinstance(outcome.value, Mapping):
        return set()
    failures = outcome.value.get("batchItemFailures")
    if failures is None:
        return set()
    if not isinstance(failures, (list, tuple)):
        return _ALL
    failed: set[str] = set()
    for entry in failures:
        identifier = entry.get("itemIdentifier") if isinstance(entry, Mapping) else None
        if not isinstance(identifier, str) or identifier not in ids:
            return _ALL  # Lambda treats an invalid answer as a failure of the whole batch
        failed.add(identifier)
    return failed


def _retry_reason(outcome: CallOutcome, failed: set[str] | None, message_id: str) -> tuple[str, str | None]:
    """Why the message stays: the handler's error, a reported failure, a crash, a missed delete.

    Only the error's type is kept: its text may hold an address or a time, which would
    make two runs of one plan differ.
    """
    if outcome.kind == "crashed":
        return "crashed", None
    if outcome.kind == "timed_out":
        return "timed_out", None
    if outcome.kind == "raised":
        return "error", type(outcome.error).__name__
    if failed is _ALL:
        return "invalid_batch_response", None
    if message_id in failed:
        return "batch_item_failure", None
    return "not_deleted", None  # handled, but a crash hit the delete first


Handler = Callable[[Any, Any], Any]
#: Runs the handler call under output capture; returns the outcome and the captured text.
Caller = Callable[[RunLoop, Handler, Any, Any], tuple[CallOutcome, str]]


def _plain_call(loop: RunLoop, handler: Handler, event: Any, context: Any) -> tuple[CallOutcome, str]:
    return loop.call(handler, event, context), ""


def _error_of(error: BaseException) -> dict[str, Any]:
    """An uncaught error as a run reports it, with no frame named (``platform`` names the user's)."""
    return {"name": type(error).__name__, "message": error_message(error)}


def deliver_queue(
    loop: RunLoop,
    queue: SqsQueue,
    *,
    max_redeliveries: int | None,
    handler: Handler,
    seed: str,
    function_name: str,
    timeout_ms: int,
    call: Caller = _plain_call,
    record_output: bool = False,
    error_of: Callable[[BaseException], Mapping[str, Any]] = _error_of,
) -> None:
    """Deliver the queue's messages, with redeliveries, until none is left, under ``loop``.

    ``record_output`` records each invocation's captured output as its last point,
    ``Lambda:<function>`` op ``output``. Each invocation's outcome is recorded
    (``RunLoop.record_outcome``), its uncaught error as ``error_of`` tells it
    (``{name, message, at?}``, ``at`` in the user's own source).
    """
    settings = queue.settings
    target = f"SQS:{settings.name}"
    while True:
        polled = queue.next_batch(loop.now_ms)
        if polled is None:
            return
        batch, start_ms = polled
        if start_ms > loop.now_ms:
            loop.globals.advance(start_ms - loop.now_ms)
        # How many of them this poll takes: the event source's batch unless the plan takes a
        # short one (a batch decision, within the plan's maxShortBatches; engine/follower.py).
        head = batch[0]
        size = loop.follower.batch(invocation_id(head.id, head.receives + 1), target, len(batch))
        assert 1 <= size <= len(batch), (size, len(batch))
        batch = batch[:size]
        for message in batch:
            message.receives += 1
            if message.first_receive_ms is None:
                message.first_receive_ms = loop.now_ms
            # Invisible until the visibility timeout ends, unless deleted before.
            message.visible_ms = loop.now_ms + settings.visibility_ms
        first = batch[0]
        invocation = invocation_id(first.id, first.receives)
        with loop.invocation(invocation, timeout_ms=timeout_ms) as current:
            context = LambdaContext(
                function_name=function_name,
                aws_request_id=request_id(seed, invocation),
                timeout_ms=timeout_ms,
                loop=loop,
                invocation=current,
            )
            event = {"Records": [queue.record(message) for message in batch]}
            outcome, output = call(loop, handler, event, context)
            failed = _failed_ids(settings, outcome, [m.id for m in batch])
            # The handler's uncaught error, or its own os._exit (the invocation's crash, named).
            own = outcome.kind == "raised" or isinstance(outcome.error, HandlerExit)
            thrown = error_of(outcome.error) if own and outcome.error is not None else None
            record = loop.record_outcome("sqs", outcome, thrown)
            if len(batch) > 1:
                record["messages"] = [message.id for message in batch]
            if outcome.kind == "returned" and (failed is _ALL or len(failed or ()) == len(batch)):
                # It returned, but reported every message it got as failed: it did not work.
                record["retriedAll"] = True
            for message in batch:
                if failed is not _ALL and message.id not in failed and _delete(loop, target, message):
                    queue.remove(message)
                    continue
                reason, error = _retry_reason(outcome, failed, message.id)
                args: dict[str, Any] = {"messageId": message.id, "body": message.event.get("body"), "implicit": True, "reason": reason}
                if error is not None:
                    args["error"] = error
                loop.platform_effect(target, "retry", args, {"released": True, "visibleAt": message.visible_ms})
                stop = redelivery_stop(message.receives, settings.max_receive_count - 1, max_redeliveries)
                if stop is None:
                    continue
                queue.remove(message)
                if stop == REDELIVERY_DEAD_LETTER:
                    loop.platform_effect(
                        target, "dead_letter", {"messageId": message.id, "attempts": message.receives}, {"deadLettered": True}
                    )
                    record["deadLettered"] = record.get("deadLettered", 0) + 1
                    continue
                # AWS would receive it again: the bound cut the run here. On a FIFO queue it
                # still holds its group back, so the group's later messages are left undone too.
                behind: tuple[str, ...] = ()
                if message.group is not None and settings.fifo:
                    queue.stalled.add(message.group)
                    behind = tuple(other.id for other in queue.pending if other.group == message.group)
                assert max_redeliveries is not None, "only the scenario's bound cuts"
                loop.record_cut(Cut(
                    bound=MAX_REDELIVERIES, where=target, invocation=invocation, left=(message.id,),
                    limit=max_redeliveries, platform_limit=settings.max_receive_count - 1, behind=behind,
                ))
            if output and record_output:
                # Last in the invocation, so it shifts no ordinal a schedule names.
                loop.platform_effect(f"Lambda:{function_name}", "output", {"text": output}, {"captured": True})


def _delete(loop: RunLoop, target: str, message: _Message) -> bool:
    """The implicit delete of a handled message; whether it was deleted."""
    deleted = False

    def perform() -> tuple[Any, Any]:
        nonlocal deleted
        deleted = True
        return {"deleted": True}, None

    args = {"messageId": message.id, "body": message.event.get("body"), "implicit": True}
    try:
        loop.effect_point(target, "delete", args, DECISION_FAULTS, perform)
    except InvocationCrash:
        # crash_before: never deleted, so received again; crash_after: deleted, and the
        # invocation's death changes nothing more.
        pass
    return deleted


def sent_in_order(events: Iterable[Mapping[str, Any]], now_ms: int) -> list[tuple[int, Mapping[str, Any]]]:
    """The drive's events with the virtual time each is sent: ``now_ms`` plus its ``atMs``
    (none: at ``now_ms``), in order of time, then of listing."""
    timed = [(now_ms + int(event.get(EVENT_TIME_FIELD, 0)), event) for event in events]
    return sorted(timed, key=lambda pair: pair[0])  # stable: a tie keeps the listing order


def queue_of(drive: Mapping[str, Any], now_ms: int, where: str) -> SqsQueue:
    """The queue a run starts with: the drive's messages, each sent at ``now_ms`` plus its
    ``atMs``, in order of time, then of listing (a later one waits invisible until then)."""
    queue = SqsQueue(settings=QueueSettings.of(drive))
    for sent_ms, event in sent_in_order(drive.get("events") or (), now_ms):
        queue.send(event, sent_ms, where=where)
    return queue


def events_of(
    messages: Iterable[Any], settings: QueueSettings, where: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The drive's events (``msg-1``, …) and the messages FIFO deduplication drops at send time."""
    listed = []
    for index, message in enumerate(messages, start=1):
        event_id = default_event_id("sqs", index)
        listed.append(message.event(event_id) if hasattr(message, "event") else {"id": event_id, "body": message})
    dropped_ids: set[str] = set()
    dropped: list[dict[str, Any]] = []
    #: Deduplication id -> (the event accepted with it, when it was sent).
    seen: dict[str, tuple[str, int]] = {}
    # In the order they are sent: a duplicate sent five minutes or more after the first is accepted.
    for sent_ms, event in sent_in_order(listed, 0):
        dedup = deduplication_id(settings, body_text(event.get("body")), event.get("deduplicationId"), where)
        if dedup is not None and dedup in seen and sent_ms - seen[dedup][1] < DEDUPLICATION_INTERVAL_MS:
            dropped.append({"id": event["id"], "duplicateOf": seen[dedup][0], "deduplicationId": dedup})
            dropped_ids.add(event["id"])
            continue
        if dedup is not None:
            seen[dedup] = (event["id"], sent_ms)
    return [event for event in listed if event["id"] not in dropped_ids], dropped

