"""A handler that logs whether its invocation is the container's first, as structured loggers do."""

import boto3

table = boto3.resource("dynamodb").Table("items")
COLD = True


def handler(event, context):
    global COLD
    print(f"cold_start={COLD}")
    COLD = False
    for record in event["Records"]:
        table.put_item(Item={"id": record["messageId"]})
    return {}
