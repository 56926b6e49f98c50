"""Selectors and state queries select what the platform records."""

from eutaxy.aws import dynamodb_read, dynamodb_rows, dynamodb_write, sqs_dead_letter, sqs_delete
from eutaxy.core.effects import Effect
from eutaxy.core.selectors import matches


def _effect(op, result, target="DynamoDB:ledger", kind="result"):
    return Effect(target=target, op=op, kind=kind, payload={"args": {}, "result": result}, invocation="msg-1#1", ordinal=0, time=0)


def test_dynamodb_write_selects_successful_writes_only():
    selector = dynamodb_write("ledger")
    assert matches(selector, _effect("PutItem", {"ok": True}))
    assert not matches(selector, _effect("PutItem", {"ok": False, "error": {"code": "ConditionalCheckFailedException"}}))
    assert not matches(selector, _effect("GetItem", {"ok": True}))
    assert not matches(selector, _effect("PutItem", {"ok": True}, target="DynamoDB:other"))
    assert matches(dynamodb_write("ledger", "UpdateItem"), _effect("UpdateItem", {"ok": True}))


def test_dynamodb_read_and_sqs_selectors():
    assert matches(dynamodb_read("ledger"), _effect("Query", {"ok": True}))
    assert matches(sqs_delete("q"), _effect("delete", {"deleted": True}, target="SQS:q"))
    assert matches(sqs_dead_letter("q"), _effect("dead_letter", {"deadLettered": True}, target="SQS:q"))


def test_dynamodb_rows_reads_the_tables_items_snapshot():
    assert {"kind": "rows", "target": "DynamoDB:ledger", "table": "items", "where": []} == dynamodb_rows("ledger")
