"""eutaxy.aws: check Python Lambda handlers on SQS with DynamoDB.

Scenario helpers build plain data (``define_scenario``, ``handler``, ``sqs``,
``dynamodb_table``); selectors and state queries (``dynamodb_write``, ``dynamodb_rows``, …)
feed core's invariants, re-exported here; ``create_platform`` gives the engine its
Platform and ``expect_holds`` replays a schedule in a regression test.
"""

from eutaxy.core.invariants import (
    aggregate as aggregate,
    at_least_once as at_least_once,
    at_least_once_per_message as at_least_once_per_message,
    at_most_once_per_key as at_most_once_per_key,
    every_row as every_row,
    implies as implies,
    in_order_per_key as in_order_per_key,
    max_interval_per_key as max_interval_per_key,
    min_interval_per_key as min_interval_per_key,
    references as references,
    refines as refines,
    unique as unique,
)

from eutaxy.aws.platform import AwsPlatform as AwsPlatform, create_platform as create_platform
from eutaxy.aws.regression import check as check, expect_holds as expect_holds, load_scenario as load_scenario
from eutaxy.aws.scenario import (
    define_scenario as define_scenario,
    dynamodb_table as dynamodb_table,
    event_bus as event_bus,
    handler as handler,
    message as message,
    s3_bucket as s3_bucket,
    sns_topic as sns_topic,
    sqs as sqs,
    sqs_queue as sqs_queue,
)
from eutaxy.aws.selectors import (
    dynamodb_attribute as dynamodb_attribute,
    dynamodb_key as dynamodb_key,
    dynamodb_read as dynamodb_read,
    dynamodb_rows as dynamodb_rows,
    dynamodb_write as dynamodb_write,
    eventbridge_events as eventbridge_events,
    eventbridge_put as eventbridge_put,
    s3_objects as s3_objects,
    s3_read as s3_read,
    s3_write as s3_write,
    sns_publish as sns_publish,
    sns_published as sns_published,
    sqs_dead_letter as sqs_dead_letter,
    sqs_delete as sqs_delete,
    sqs_messages as sqs_messages,
    sqs_send as sqs_send,
)

__all__ = [
    "AwsPlatform",
    "aggregate",
    "at_least_once",
    "at_least_once_per_message",
    "at_most_once_per_key",
    "create_platform",
    "define_scenario",
    "dynamodb_attribute",
    "dynamodb_key",
    "dynamodb_read",
    "dynamodb_rows",
    "dynamodb_table",
    "dynamodb_write",
    "event_bus",
    "eventbridge_events",
    "eventbridge_put",
    "every_row",
    "check",
    "expect_holds",
    "handler",
    "implies",
    "in_order_per_key",
    "load_scenario",
    "max_interval_per_key",
    "message",
    "min_interval_per_key",
    "references",
    "refines",
    "s3_bucket",
    "s3_objects",
    "s3_read",
    "s3_write",
    "sns_publish",
    "sns_published",
    "sns_topic",
    "sqs",
    "sqs_dead_letter",
    "sqs_delete",
    "sqs_messages",
    "sqs_queue",
    "sqs_send",
    "unique",
]
