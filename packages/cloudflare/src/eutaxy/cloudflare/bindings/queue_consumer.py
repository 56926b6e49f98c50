"""The queue consumer binding kind: the queues a Worker consumes (``queues.consumers``) and the queue drive.

A consumer is no name in ``env``: it is the Worker's ``queue()`` handler, and its binding is
the queue it consumes (the entry's ``queue``), so its targets are ``Queue:<queue>``, the
label it shares with the producers (bindings/queue_producer.py). It needs no setup step: the
queue is Eutaxy's model, made anew for every run (runtime/queue.mjs), so nothing carries over.

Each binding's settings go to the runtime record in its load-message entry
(``binding_settings``): ``maxRetries`` (the entry's ``max_retries``, else Cloudflare's
documented default, :data:`MAX_RETRIES_DEFAULT`), ``retryDelaySeconds`` (``retry_delay``, 0
when unset) and ``maxBatchSize`` (``max_batch_size``, else Cloudflare's default
:data:`MAX_BATCH_SIZE_DEFAULT`); the kind's policy carries the ack and retry decisions' ladder
and the longest retry delay Cloudflare accepts. The queue drive (``eutaxy.cloudflare.queue``)
delivers a consumed queue's messages: its check, the verdict's sentences about it and what
``eutaxy draft`` writes for it are this record's.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Mapping

import attrs

from eutaxy.core.errors import UserError, nearest_names

from ..queues import BATCH_SIZE_DEFAULT, batch_size_of
from ._record import BindingKind, DraftContext, KindNames, effect_selector

if TYPE_CHECKING:
    from eutaxy.cloudflare.wrangler import Binding, WranglerConfig

__all__ = [
    "DELIVERY_DELAY_S_MAX",
    "MAX_BATCH_SIZE_DEFAULT",
    "MAX_BATCH_SIZE_LIMIT",
    "MAX_RETRIES_DEFAULT",
    "MAX_RETRIES_LIMIT",
    "QUEUE_CONSUMER",
    "QueueConsumer",
    "QueueConsumerKind",
    "consumer_of",
    "consumers",
    "queue_ack",
]

#: Cloudflare's documentation gives 3 as a consumer's default ``max_retries``
#: (developers.cloudflare.com/queues/configuration/configure-queues/). Miniflare's
#: README says 2; Eutaxy follows the production platform the user deploys to,
#: as the seeds do, so a redelivery that production makes is explored here too.
MAX_RETRIES_DEFAULT = 3
#: Cloudflare caps ``max_retries`` at 100.
MAX_RETRIES_LIMIT = 100
#: Cloudflare caps a consumer's ``max_batch_size`` at 100 messages.
MAX_BATCH_SIZE_LIMIT = 100
#: A consumer's ``max_batch_size`` when the config sets none: Cloudflare's documented default
#: (Cloudflare's Queues configuration reference gives 10; the batch timeout's 5 s is not read).
MAX_BATCH_SIZE_DEFAULT = 10
#: Cloudflare delays a message's delivery by at most 12 hours (``delivery_delay``,
#: ``delaySeconds``, and a consumer's ``retry_delay``).
DELIVERY_DELAY_S_MAX = 43_200

#: The kind's name, as the producers' record asks which queues the Worker consumes.
NAME = "queue_consumer"


@attrs.frozen(kw_only=True)
class QueueConsumer:
    """A ``queues.consumers`` entry, its settings resolved."""

    queue: str
    max_retries: int
    #: ``"config"`` when the config sets ``max_retries``, ``"default"`` when it is
    #: Cloudflare's documented default; the verdict's assumptions say which.
    max_retries_source: str
    #: The config's ``max_batch_size``, else Cloudflare's default (MAX_BATCH_SIZE_DEFAULT): the
    #: most messages one delivery hands the handler, and a drive's batch size when the
    #: scenario names none (the kind's ``check_drive`` refuses a larger ``batchSize``).
    max_batch_size: int
    dead_letter_queue: str | None
    #: The config's ``retry_delay`` in seconds (0 when unset): how long a retried message
    #: waits before its redelivery when its retry() names no delay, and after a handler
    #: that threw, as Cloudflare documents it.
    retry_delay_s: int = 0
    #: ``"config"`` or ``"default"``, as for ``max_retries_source``.
    max_batch_size_source: str = "config"


def _consumer(binding: "Binding") -> QueueConsumer:
    numbers = binding.numbers
    max_retries = numbers.get("max_retries")
    max_batch_size = numbers.get("max_batch_size")
    return QueueConsumer(
        queue=binding.name,
        max_retries=MAX_RETRIES_DEFAULT if max_retries is None else max_retries,
        max_retries_source="default" if max_retries is None else "config",
        max_batch_size=MAX_BATCH_SIZE_DEFAULT if max_batch_size is None else max_batch_size,
        max_batch_size_source="default" if max_batch_size is None else "config",
        dead_letter_queue=binding.fields.get("dead_letter_queue"),
        retry_delay_s=numbers.get("retry_delay") or 0,
    )


def consumers(config: "WranglerConfig") -> list[QueueConsumer]:
    """The queues the Worker consumes, in the config's order."""
    return [_consumer(binding) for binding in config.bindings if binding.kind == NAME]


def consumer_of(config: "WranglerConfig", queue: object) -> QueueConsumer | None:
    """The consumer settings for ``queue``, if this Worker consumes it."""
    return next((consumer for consumer in consumers(config) if consumer.queue == queue), None)


def queue_ack(queue: str) -> dict[str, Any]:
    """The acknowledgement that took effect for each message (an earlier decision did not win)."""
    return effect_selector(f"Queue:{queue}", "ack", where={"result.effective": True})


def _batches(config: "WranglerConfig", drive: Mapping[str, Any]) -> str:
    """How the queue drive's messages are batched, for the verdict's assumptions."""
    consumer = consumer_of(config, str(drive.get("name")))
    batch_size = drive.get("batchSize")
    if batch_size is None and consumer is not None:
        batch_size = consumer.max_batch_size
        source = (
            "the consumer's max_batch_size"
            if consumer.max_batch_size_source == "config"
            else "Cloudflare's default max_batch_size, as the config sets none"
        )
    else:
        source = "the drive's batch_size"
    if batch_size == 1:
        return f"one at a time ({source})"
    return (
        f"in batches of up to {batch_size} ({source}), each taking the messages waiting when its delivery starts "
        "(max_batch_timeout is not waited out)"
    )


@attrs.frozen(kw_only=True)
class QueueConsumerKind(BindingKind):
    """A consumed queue: Eutaxy's model of it (runtime/queue.mjs), delivered by the queue drive."""

    def resource_of(self, binding: "Binding") -> str:
        return binding.name

    def target_problem(self, config: "WranglerConfig", field: str, name: str) -> str | None:
        if field not in ("query", "target") or consumer_of(config, name) is None:
            return None
        return (
            f"reads the rows of {self.label}:{name}, but the Worker consumes that queue, so what it produces "
            f"onto it is delivered to it, not kept; select the deliveries' effects instead (queue_send("
            f"{name!r}) for the sends), or read the rows of a queue the Worker only produces onto"
        )

    def binding_settings(self, binding: "Binding") -> dict[str, Any]:
        consumer = _consumer(binding)
        return {"maxRetries": consumer.max_retries, "retryDelaySeconds": consumer.retry_delay_s, "maxBatchSize": consumer.max_batch_size}

    def policy(self) -> dict[str, Any]:
        return {**super().policy(), "retryDelaySecondsMax": DELIVERY_DELAY_S_MAX}

    def production_only_of(self, config: "WranglerConfig", drive: Mapping[str, Any]) -> str | None:
        return self.production_only if drive.get("kind") == self.drive else None

    def define_drive(self, drive: Mapping[str, Any]) -> dict[str, Any]:
        # The runtime's queue drive fills in nothing: the batch size is written here, once
        # (queue(...) writes it; a hand-written drive without one gets null, the consumer's
        # max_batch_size, which the runtime reads from the load message).
        return {**dict(drive), "batchSize": batch_size_of(drive.get("batchSize", BATCH_SIZE_DEFAULT), "define_scenario: the queue drive")}

    def check_drive(self, config: "WranglerConfig", drive: Mapping[str, Any]) -> None:
        name = drive.get("name")
        consumer = consumer_of(config, name)
        if consumer is None:
            consumed = nearest_names(str(name), (consumer.queue for consumer in consumers(config)), what="queues.consumers")
            raise UserError(
                f"the scenario drives queue {name!r}, but {config.path.name} has no consumer for it; {consumed}", near=str(name)
            )
        # define_scenario (queue(...)) writes the batch size (null: the consumer's); the runtime's drive asserts it.
        if "batchSize" not in drive:
            raise UserError(f"the queue drive of {name!r} carries no batchSize; build it with queue(...) in define_scenario")
        batch_size = drive["batchSize"]
        if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1):
            raise UserError(
                f"the queue drive of {name!r} carries batchSize {batch_size!r}, not a whole number of at least 1; "
                "build it with queue(...) in define_scenario"
            )
        if batch_size is not None and batch_size > consumer.max_batch_size:
            sets = (
                f"sets the consumer's max_batch_size to {consumer.max_batch_size}"
                if consumer.max_batch_size_source == "config"
                else f"sets no max_batch_size for the consumer, so Cloudflare's default {consumer.max_batch_size} holds"
            )
            raise UserError(f"the queue drive of {name!r} asks for batches of {batch_size}, but {config.path.name} {sets}", near=str(name))

    def drive_assumptions(self, config: "WranglerConfig", drive: Mapping[str, Any]) -> list[str]:
        sentences = [
            f"Queue messages are delivered {_batches(config, drive)}, one invocation per delivery attempt; the first ack or "
            "retry per message wins; an unacknowledged message is redelivered up to max_retries, then dead-lettered "
            "(one a lower maxRedeliveries stops is a cut the verdict names, not a dead letter)."
        ]
        consumer = consumer_of(config, drive.get("name"))
        if consumer is None:
            return sentences
        if consumer.max_retries_source == "default":
            sentences.append(
                f"Queue {consumer.queue}: max_retries is {consumer.max_retries}, Cloudflare's documented default "
                f"(the config sets none; Miniflare's README says 2)."
            )
        else:
            sentences.append(f"Queue {consumer.queue}: max_retries is {consumer.max_retries}, from {config.path.name}.")
        if consumer.retry_delay_s:
            sentences.append(
                f"Queue {consumer.queue}: retry_delay is {consumer.retry_delay_s} s, from {config.path.name}: a message "
                "retried without a delaySeconds of its own, or after the handler threw, is delivered again that much "
                "later in virtual time."
            )
        return sentences

    def draft_drive_notes(self, draft: DraftContext) -> bool:
        consumed = consumers(draft.config)
        if not consumed:
            if self.drive_handler in draft.handlers:
                draft.note(
                    "entry_point",
                    f"{draft.entry_name} has a queue() handler but the config has no queues.consumers entry, so it is not driven",
                )
            return False
        if self.drive_handler not in draft.handlers:
            draft.note("guess", f"the config has a consumer of queue {consumed[0].queue} but no queue() handler was found in "
                       f"{draft.entry_name} by the text scan; the queue is driven anyway")
        for consumer in consumed[1:]:
            draft.note("entry_point", f"the Worker also consumes queue {consumer.queue}; a second scenario can drive it with "
                       f"queue({consumer.queue!r}, ...)")
        return True

    def draft_drive(self, draft: DraftContext) -> tuple[dict[str, Any], list[str], list[dict[str, Any]]]:
        consumer = consumers(draft.config)[0]
        draft.uses("queue")
        variable = draft.identifier(consumer.queue, "messages")
        if "fetch" in draft.handlers:
            produced = [binding.resource for binding in draft.config.bindings if binding.kind == "queue_producer"]
            own = [queue for queue in produced if consumer_of(draft.config, queue) is not None]
            end_to_end = (
                f"; what it sends to queue {own[0]} is delivered to queue() in the same run, so that scenario checks the "
                "produce-then-consume path end to end"
                if own else ""
            )
            draft.note("entry_point", f"the Worker also has a fetch() handler; a second scenario can drive it with http(...){end_to_end}")
        draft.note("read", f"the drive delivers messages of queue {consumer.queue} "
                   f"(the config's consumer; max_retries {consumer.max_retries}, {consumer.max_retries_source})")
        body, said = draft.body_hint()
        events = [{"body": body}] if body is not None else []
        hint = f"the messages queue {consumer.queue} delivers, in order, each {{'body': ...}}"
        lines = [f"{variable} = queue(", f"    {json.dumps(consumer.queue)},"]
        lines.append(f"    # TODO(events): {hint}.")
        if body is not None:
            lines.append(f"    # {said}, e.g. [{draft.python(events[0])}, ...]")
        lines.append(f"    {draft.hole('events', hint)},")
        lines.append(")")
        return {"kind": "queue", "name": consumer.queue, "variable": variable}, lines, events


QUEUE_CONSUMER = QueueConsumerKind(
    name=NAME,
    names=KindNames(label="Queue", plural="queues", noun="queue"),
    section="queues.consumers",
    binding_field="queue",
    resource_field="queue",
    fields=("dead_letter_queue",),
    int_fields={
        "max_retries": (0, MAX_RETRIES_LIMIT, ""),
        "retry_delay": (0, DELIVERY_DELAY_S_MAX, " seconds"),
        "max_batch_size": (1, MAX_BATCH_SIZE_LIMIT, ""),
    },
    section_note=(
        "Consumers (`max_retries`, `max_batch_size`, `retry_delay`) in Eutaxy's queue model; `max_batch_timeout` and "
        "`max_concurrency` are not read (a batch is the messages waiting when its delivery starts, up to "
        "`max_batch_size`, else Cloudflare's default 10, or the drive's smaller `batchSize`; concurrency is the "
        "scenario's bound)."
    ),
    env_bindings=False,
    selectors=("queue_ack",),
    # Each ack() and retry() is a decision point (runtime/queue.mjs), taking core's decision ladder.
    operations={"ack": "decision", "retry": "decision"},
    production_only="queue batches formed by timing (max_batch_timeout)",
    drive="queue",
    drive_handler="queue",
    drive_source="queue consumer",
)
