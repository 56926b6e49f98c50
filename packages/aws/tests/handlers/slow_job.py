"""A test handler whose slow jobs fail until their fourth receive.

A job with ``slow`` raises while the message's ApproximateReceiveCount is below 4, then
records it; any other job is recorded on its first receive.
"""

import json

import boto3

table = boto3.resource("dynamodb").Table("jobs")


def handler(event, context):
    for record in event["Records"]:
        job = json.loads(record["body"])
        if job.get("slow") and int(record["attributes"]["ApproximateReceiveCount"]) < 4:
            raise RuntimeError(f"not yet (receive {record['attributes']['ApproximateReceiveCount']})")
        table.put_item(Item={"job_id": job["jobId"]})
