"""The queue producer binding kind: the queues a Worker sends to (``queues.producers``).

A producer binding sends into Eutaxy's model of the queue, not Miniflare's broker
(runtime/producer.mjs): each ``send`` or ``sendBatch`` is one effect at ``Queue:<queue>``
(the label it shares with the consumer, bindings/queue_consumer.py), a message onto a queue
the Worker consumes is delivered to it later in the run, and one onto any other queue is kept
as that queue's snapshot rows (:func:`queue_rows`). It needs no setup step: what was produced
is the run's own, so nothing carries over.

Each binding's settings go to the runtime record in its load-message entry
(``binding_settings``): the queue it sends to and its ``deliveryDelaySeconds`` (the entry's
``delivery_delay``, 0 when unset); the kind's policy carries the sends' ladder and the limits
Cloudflare puts on a message's delay and a batch's size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import attrs

from eutaxy.core.selectors import rows

from ._record import BindingKind, DraftContext, KindNames, effect_selector
from .queue_consumer import DELIVERY_DELAY_S_MAX, consumer_of

if TYPE_CHECKING:
    from eutaxy.cloudflare.wrangler import Binding, WranglerConfig

__all__ = ["BATCH_MESSAGES_MAX", "QUEUE_PRODUCER", "QueueProducerKind", "producers", "queue_rows", "queue_send"]

#: The most messages one ``sendBatch`` may carry (Cloudflare's Queues limits).
BATCH_MESSAGES_MAX = 100


def producers(config: "WranglerConfig") -> list[tuple[str, str]]:
    """(binding, queue) of each producer binding, in the config's order."""
    return [(binding.name, str(binding.resource)) for binding in config.bindings if binding.kind == QUEUE_PRODUCER.name]


def queue_send(queue: str, op: str | list[str] | None = None) -> dict[str, Any]:
    """Messages the Worker produced onto ``queue`` that were sent (``send``, ``sendBatch``).

    Each is one effect: ``send``'s body is at ``args.body`` (key ``"args.body.orderId"``), a
    ``sendBatch``'s messages at ``args.messages.<i>.body``; the ids they got at
    ``result.messageIds``. A send that took ``error`` or ``crash_before`` sent nothing and is
    not selected; ``ambiguous`` and ``crash_after`` sent it. ``op`` narrows to one method.
    """
    return effect_selector(f"Queue:{queue}", ["send", "sendBatch"] if op is None else op)


def queue_rows(queue: str, where: Iterable[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The messages produced onto ``queue``, a queue the Worker does not consume, as the run ends.

    Rows ``{messageId, body, contentType?, delaySeconds}``: the table ``messages`` of
    ``Queue:<queue>`` (``rows("Queue:<queue>", "messages")``). A message onto a queue the
    Worker consumes is delivered to it instead, and kept in no table.
    """
    return rows(f"Queue:{queue}", "messages", where)


@attrs.frozen(kw_only=True)
class QueueProducerKind(BindingKind):
    """A producer binding: a stand-in in ``env`` sending into Eutaxy's queue model (runtime/bindings/queue_producer.mjs)."""

    def targets(self, config: "WranglerConfig") -> list[str]:
        return list(self.resources(config).values())

    def binding_settings(self, binding: "Binding") -> dict[str, Any]:
        return {"queue": self.resource_of(binding), "deliveryDelaySeconds": binding.numbers.get("delivery_delay", 0)}

    def policy(self) -> dict[str, Any]:
        return {**super().policy(), "delaySecondsMax": DELIVERY_DELAY_S_MAX, "batchMessagesMax": BATCH_MESSAGES_MAX}

    def assumptions(self, config: "WranglerConfig", steps: Sequence[Mapping[str, Any]]) -> list[str]:
        consumed = [queue for _, queue in producers(config) if consumer_of(config, queue) is not None]
        return [
            "Queue producers send into Eutaxy's model of the queue, not Miniflare's: each send or sendBatch is one "
            "effect (all of a batch or none of it), a message onto a queue the Worker consumes is delivered to it "
            "later in the run (after its delay in virtual time, with its own faults and redeliveries), and one onto "
            "any other queue is kept as that queue's snapshot rows."
            + (f" Consumed and produced onto: {', '.join(sorted(set(consumed)))}." if consumed else "")
        ]

    def draft_notes(self, binding: "Binding", draft: DraftContext) -> None:
        queue = self.resource_of(binding)
        if consumer_of(draft.config, queue) is not None:
            what = "this Worker consumes that queue, so what it sends is delivered to its queue() handler later in each run"
        else:
            what = f"what it sends is kept as rows, queue_rows({queue!r}), for state invariants"
        draft.note("read", f"queue producer {binding.name} (queue {queue}): {what}")


QUEUE_PRODUCER = QueueProducerKind(
    name="queue_producer",
    names=KindNames(label="Queue", plural="queues", noun="queue"),
    section="queues.producers",
    resource_field="queue",
    resource_required=True,
    int_fields={"delivery_delay": (0, DELIVERY_DELAY_S_MAX, " seconds")},
    section_note="Producers (`delivery_delay`) in Eutaxy's queue model: no message reaches Miniflare's broker.",
    selectors=("queue_rows", "queue_send"),
    # Each send and sendBatch is one io effect point with the write ladder (runtime/producer.mjs).
    operations={"send": "write", "sendBatch": "write"},
    assumptions_last=True,
)
