"""The queue drive: messages delivered to the Worker's ``queue()`` handler.

Events are numbered ``msg-1``, ``msg-2``, ... in the order given, unless a
message names its own ``id``; the shrinker removes events by id, so an id stays
with its message whatever else is removed.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from eutaxy.core.errors import UserError
from eutaxy.core.plain_data import json_problem
from eutaxy.engine.holes import Hole
from eutaxy.engine.scenario import EVENT_TIME_FIELD, default_event_id, event_at_ms

__all__ = ["batch_size_of", "queue"]

#: A drive's ``batchSize`` when the scenario names none: null, the consumer's ``max_batch_size``
#: (the config's, else Cloudflare's default 10, ``eutaxy.cloudflare.wrangler``), which the
#: runtime reads from the load message.
BATCH_SIZE_DEFAULT = None

_MESSAGE_FIELDS = frozenset({"id", "body", "at_ms", EVENT_TIME_FIELD})


def batch_size_of(value: Any, where: str) -> int | None:
    """A queue drive's ``batchSize``: a whole number of messages, at least 1, or None (the consumer's)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise UserError(f"{where}: batch_size must be a whole number of messages, at least 1, got {value!r}")
    return value


def queue(name: str, messages: Sequence[Mapping[str, Any]] | Hole, *, batch_size: int | None = BATCH_SIZE_DEFAULT) -> dict[str, Any]:
    """Drive the consumer of queue ``name`` with ``messages``, each ``{"body": ...}``.

    The body is any JSON value; a message may also carry an ``id``, and ``at_ms``: the
    virtual milliseconds after the run's start at which it is sent (messages are delivered
    in order of time, then of listing; none means at the start). Each delivery attempt
    hands the handler up to ``batch_size`` of the messages waiting when it starts, in one
    batch; by default (None) the consumer's ``max_batch_size`` in the wrangler config, else
    Cloudflare's default 10. A size above the consumer's ``max_batch_size`` is refused by the
    Worker's check. ``messages`` may be a draft's
    ``todo(...)`` hole, kept for ``define_scenario`` to refuse.
    """
    if not isinstance(name, str) or not name:
        raise UserError(f"queue: name must be the queue's name from the wrangler config, got {name!r}")
    if isinstance(messages, Hole):
        return {"kind": "queue", "name": name, "events": messages, "batchSize": batch_size_of(batch_size, f"queue({name!r})")}
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Sequence):
        raise UserError(f"queue({name!r}): messages must be a list of {{'body': ...}}, got {messages!r}")
    events = []
    for index, message in enumerate(messages):
        if not isinstance(message, Mapping) or "body" not in message:
            raise UserError(f"queue({name!r}): message {index} must be a dict with a body, got {message!r}")
        unknown = set(message) - _MESSAGE_FIELDS
        if unknown:
            raise UserError(f"queue({name!r}): message {index} has unknown fields {', '.join(sorted(unknown))}")
        event_id = message.get("id", default_event_id("queue", index + 1))
        if not isinstance(event_id, str) or not event_id or "#" in event_id:
            raise UserError(f"queue({name!r}): message {index}'s id must be a non-empty string without '#', got {event_id!r}")
        problem = json_problem(message["body"], "body", safe_integers=True)
        if problem is not None:
            raise UserError(f"queue({name!r}): message {index} ({event_id}): {problem}")
        event = {"id": event_id, "body": message["body"]}
        at_ms = event_at_ms(message, f"queue({name!r}) message {index} ({event_id})")
        if at_ms is not None:
            event[EVENT_TIME_FIELD] = at_ms
        events.append(event)
    if not events:
        raise UserError(f"queue({name!r}): give at least one message")
    return {"kind": "queue", "name": name, "events": events, "batchSize": batch_size_of(batch_size, f"queue({name!r})")}
