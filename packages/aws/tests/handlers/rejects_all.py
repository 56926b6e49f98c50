"""A test handler that reports every message of its batch as failed, so each is dead-lettered."""


def handler(event, context):
    return {"batchItemFailures": [{"itemIdentifier": record["messageId"]} for record in event["Records"]]}
