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
    "sqs_dead_letter",
    "sqs_delete",
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
