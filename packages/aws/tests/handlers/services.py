"""A test handler calling SQS, S3, SNS and EventBridge, as each message's body says."""

import json
import os

import boto3
from botocore.exceptions import BotoCoreError, ClientError

sqs = boto3.client("sqs")
s3 = boto3.client("s3")
sns = boto3.client("sns")
events = boto3.client("events")
ACCOUNT = "000000000000"
REGION = os.environ["AWS_REGION"]
SEEN = []


def handler(event, context):
    for record in event["Records"]:
        body = json.loads(record["body"])
        action = body["action"]
        seen = {"action": action, "messageId": record["messageId"], "attributes": record["messageAttributes"]}
        SEEN.append(seen)
        try:
            if action == "forward":
                url = sqs.get_queue_url(QueueName=body["queue"])["QueueUrl"]
                extra = {"MessageGroupId": "g", "MessageDeduplicationId": body["dedup"]} if body["queue"].endswith(".fifo") else {}
                attributes = {"kind": {"DataType": "String", "StringValue": "x"}, "raw": {"DataType": "Binary", "BinaryValue": b"\x01"}}
                seen["answer"] = sqs.send_message(
                    QueueUrl=url, MessageBody=json.dumps(body["payload"]), MessageAttributes=attributes, **extra
                )
            elif action == "batch":
                url = sqs.get_queue_url(QueueName=body["queue"])["QueueUrl"]
                entries = [{"Id": str(n), "MessageBody": json.dumps(payload)} for n, payload in enumerate(body["payloads"])]
                seen["answer"] = sqs.send_message_batch(QueueUrl=url, Entries=entries)
            elif action == "put":
                s3.put_object(Bucket="docs", Key=body["key"], Body=body["text"].encode())
            elif action == "get":
                seen["text"] = s3.get_object(Bucket="docs", Key=body["key"])["Body"].read().decode()
            elif action == "delete":
                s3.delete_object(Bucket="docs", Key=body["key"])
            elif action == "list":
                seen["keys"] = [o["Key"] for o in s3.list_objects_v2(Bucket="docs").get("Contents", [])]
            elif action == "publish":
                sns.publish(TopicArn=f"arn:aws:sns:{REGION}:{ACCOUNT}:alerts", Message=json.dumps(body["payload"]))
            elif action == "event":
                events.put_events(Entries=[{"Source": "shop", "DetailType": "order", "Detail": json.dumps(body["payload"])}])
            elif action == "lambda":
                boto3.client("lambda").list_functions()
        except ClientError as error:
            seen["error"] = error.response["Error"]["Code"]
        except BotoCoreError as error:  # a timeout: the call's outcome is unknown
            seen["error"] = f"{type(error).__name__}: {error}"
    return {}
