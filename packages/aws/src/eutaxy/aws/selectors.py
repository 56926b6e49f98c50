"""Selectors, keys and state queries over what the AWS platform records.

They return plain data that core's invariants read. Arguments and results of DynamoDB
effects are plain JSON (attribute values unwrapped), so a key is ``args.Item.order_id``
whether the handler used a client or a boto3 ``Table``.
"""

from __future__ import annotations

from typing import Any, Iterable

from eutaxy.core.selectors import rows

from eutaxy.aws.dynamodb import READ_OPS, WRITE_OPS, target_of

__all__ = [
    "SNAPSHOT_TABLE",
    "dynamodb_attribute",
    "dynamodb_key",
    "dynamodb_read",
    "dynamodb_rows",
    "dynamodb_write",
    "eventbridge_events",
    "eventbridge_put",
    "s3_objects",
    "s3_read",
    "s3_write",
    "sns_publish",
    "sns_published",
    "sqs_dead_letter",
    "sqs_delete",
    "sqs_messages",
    "sqs_send",
]

#: The op a DynamoDB table's snapshot is recorded under (its target names the table).
SNAPSHOT_TABLE = "items"


def _ops(op: str | list[str] | None, default: tuple[str, ...]) -> str | list[str]:
    return list(default) if op is None else op


def dynamodb_write(table: str, op: str | list[str] | None = None) -> dict[str, Any]:
    """Writes to ``table`` that succeeded (a failed condition check is not a write)."""
    return {"target": target_of([table]), "op": _ops(op, WRITE_OPS), "kind": "result", "where": {"result.ok": True}}


def dynamodb_read(table: str, op: str | list[str] | None = None) -> dict[str, Any]:
    """Reads of ``table`` that succeeded."""
    return {"target": target_of([table]), "op": _ops(op, READ_OPS), "kind": "result", "where": {"result.ok": True}}


def dynamodb_attribute(name: str) -> str:
    """The key of a PutItem's item attribute: ``args.Item.<name>``."""
    return f"args.Item.{name}"


def dynamodb_key(name: str) -> str:
    """The key of an UpdateItem/DeleteItem/GetItem key attribute: ``args.Key.<name>``."""
    return f"args.Key.{name}"


def dynamodb_rows(table: str, where: Iterable[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A table's items (plain JSON) in the end-of-run snapshot, filtered by ``where``."""
    return rows(target_of([table]), SNAPSHOT_TABLE, where)


def sqs_delete(queue: str) -> dict[str, Any]:
    """The deletes of messages from ``queue`` that took effect (each handled message's)."""
    return {"target": f"SQS:{queue}", "op": "delete", "kind": "result"}


def sqs_dead_letter(queue: str) -> dict[str, Any]:
    """Messages of ``queue`` moved to its dead-letter queue after maxReceiveCount receives."""
    return {"target": f"SQS:{queue}", "op": "dead_letter", "kind": "result"}


def sqs_send(queue: str) -> dict[str, Any]:
    """Messages the handler sent to ``queue`` that the queue accepted (not dropped as duplicates).

    One effect per ``SendMessage``; its body, parsed when it is JSON, is at ``args.body``.
    """
    return {
        "target": f"SQS:{queue}",
        "op": "SendMessage",
        "kind": "result",
        "where": {"result.ok": True, "result.deduplicated": False},
    }


def sqs_messages(queue: str, where: Iterable[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The messages a declared queue (``sqs_queue``) holds at the end of the run."""
    return rows(f"SQS:{queue}", "messages", where)


def s3_write(bucket: str, op: str | list[str] | None = None) -> dict[str, Any]:
    """Successful ``PutObject``/``DeleteObject`` calls on ``bucket``."""
    return {"target": f"S3:{bucket}", "op": _ops(op, ("PutObject", "DeleteObject")), "kind": "result", "where": {"result.ok": True}}


def s3_read(bucket: str, op: str | list[str] | None = None) -> dict[str, Any]:
    """Successful reads of ``bucket``."""
    ops = ("GetObject", "HeadObject", "ListObjectsV2", "ListObjects")
    return {"target": f"S3:{bucket}", "op": _ops(op, ops), "kind": "result", "where": {"result.ok": True}}


def s3_objects(bucket: str, where: Iterable[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A bucket's objects at the end of the run: ``{key, body}`` (the body ``{"$": "bytes", "v": base64}`` when not UTF-8)."""
    return rows(f"S3:{bucket}", "objects", where)


def sns_publish(topic: str) -> dict[str, Any]:
    """Successful ``Publish`` calls to ``topic`` (the message, parsed when JSON, at ``args.body``)."""
    return {"target": f"SNS:{topic}", "op": "Publish", "kind": "result", "where": {"result.ok": True}}


def sns_published(topic: str, where: Iterable[dict[str, Any]] | None = None) -> dict[str, Any]:
    """What ``topic`` received in the run, in order."""
    return rows(f"SNS:{topic}", "published", where)


def eventbridge_put(bus: str = "default") -> dict[str, Any]:
    """Successful ``PutEvents`` calls on ``bus`` (entries at ``args.Entries``, each detail at ``detail``)."""
    return {"target": f"EventBridge:{bus}", "op": "PutEvents", "kind": "result", "where": {"result.ok": True}}


def eventbridge_events(bus: str = "default", where: Iterable[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The events put on ``bus`` in the run, in order."""
    return rows(f"EventBridge:{bus}", "events", where)
