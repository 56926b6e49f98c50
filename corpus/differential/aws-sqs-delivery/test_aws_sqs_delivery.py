"""Differential: the fault-free SQS delivery model against moto's own SQS, queue by queue.

For each queue configuration the same messages go through Eutaxy's delivery model
(``eutaxy.aws.sqs``, with a scripted handler) and through moto's SQS (in-process, its clock
moved by time-machine), polled as the Lambda event source polls: receive up to the batch
size, call the same scripted handler, delete what it handled. The batches (bodies and
receive counts, in order) and the dead-lettered messages must agree. The scripted handler
fails a message while its receive count is at most the ``fail`` its body names.

moto's clock (frozen, moved by time-machine) follows the platform's: a millisecond per
delete, retry and dead-letter, and while nothing is visible a jump to the next time
something may become visible (a delay's end, a visibility timeout's end, known to the
poller from what it sent and received; moto shows a message a millisecond after that time,
where the model shows it at the time, which orders nothing differently). Virtual times are compared through the order they
give: a redelivery after its visibility timeout against a delayed message, batches that
come back apart by milliseconds, a FIFO group held back behind its failed head.
"""

import datetime as dt
import json

import boto3
import pytest
import time_machine
from moto import mock_aws

from eutaxy.aws import message, sqs
from eutaxy.aws.sqs import deliver_queue, queue_of
from eutaxy.core.effects import VIRTUAL_EPOCH_MS
from eutaxy.engine.runloop import RunLoop

START = dt.datetime.fromtimestamp(VIRTUAL_EPOCH_MS / 1000, tz=dt.timezone.utc)


def _fails(body_text, receives):
    return receives <= json.loads(body_text).get("fail", 0)


def through_the_model(drive):
    batches = []

    def handler(event, context):
        records = event["Records"]
        batches.append([(r["body"], int(r["attributes"]["ApproximateReceiveCount"])) for r in records])
        failed = [r["messageId"] for r in records if _fails(r["body"], int(r["attributes"]["ApproximateReceiveCount"]))]
        return {"batchItemFailures": [{"itemIdentifier": m} for m in failed]}

    loop = RunLoop.from_plan(
        {
            "prefix": [],
            "streams": {"globals": [1, 2, 3, 4], "turns": [5, 6, 7, 8]},
            "policy": {"kind": "first"},
            "maxFaults": 0,
            "maxShortBatches": 0,
            "scenario": {"bounds": {"effectHangMs": 10000}},
        }
    )
    bodies = {event["id"]: event["body"] for event in drive["events"]}

    def body(running):
        deliver_queue(
            running, queue_of(drive, running.now_ms, "differential"), max_redeliveries=100, handler=handler,
            seed="differential", function_name="differential", timeout_ms=1000,
        )

    loop.run(body)
    assert {"kind": "completed"} == loop.end
    dead = sorted(
        json.dumps(bodies[e.payload["args"]["messageId"]], separators=(",", ":"), sort_keys=True)
        for e in loop.effects
        if e.op == "dead_letter" and e.kind == "result"
    )
    return batches, dead


def through_moto(drive, events):
    batches = []
    with mock_aws(), time_machine.travel(START, tick=False) as clock:
        client = boto3.client("sqs", region_name="us-east-1")
        fifo = drive["fifo"]
        suffix = ".fifo" if fifo else ""
        dlq = client.create_queue(QueueName="dead" + suffix, Attributes={"FifoQueue": "true"} if fifo else {})["QueueUrl"]
        dlq_arn = client.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        attributes = {
            "VisibilityTimeout": str(drive["visibilityTimeoutSeconds"]),
            "DelaySeconds": str(drive["delaySeconds"]),
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": drive["maxReceiveCount"]}),
        }
        if fifo:
            attributes.update(FifoQueue="true", ContentBasedDeduplication=str(drive["contentBasedDeduplication"]).lower())
        url = client.create_queue(QueueName="jobs" + suffix, Attributes=attributes)["QueueUrl"]
        for event in events:
            extra = {}
            if "groupId" in event:
                extra["MessageGroupId"] = event["groupId"]
            if "deduplicationId" in event:
                extra["MessageDeduplicationId"] = event["deduplicationId"]
            if "delaySeconds" in event:
                extra["DelaySeconds"] = event["delaySeconds"]
            client.send_message(QueueUrl=url, MessageBody=_text(event["body"]), **extra)
        now = VIRTUAL_EPOCH_MS
        # When something may become visible: the poller knows what it sent and received.
        candidates = {now + 1000 * int(e.get("delaySeconds", drive["delaySeconds"])) for e in events}
        while True:
            received = client.receive_message(
                QueueUrl=url, MaxNumberOfMessages=drive["batchSize"], AttributeNames=["All"]
            ).get("Messages", [])
            if not received:
                # moto shows a message once its time is past, not at it.
                later = sorted(c + 1 for c in candidates if c + 1 > now)
                if not later:
                    break
                now = later[0]
                clock.move_to(dt.datetime.fromtimestamp(now / 1000, tz=dt.timezone.utc))
                continue
            batches.append([(m["Body"], int(m["Attributes"]["ApproximateReceiveCount"])) for m in received])
            received_at = now
            for m in received:
                count = int(m["Attributes"]["ApproximateReceiveCount"])
                if _fails(m["Body"], count):
                    candidates.add(received_at + 1000 * drive["visibilityTimeoutSeconds"])
                    # The platform's clock: a millisecond per retry, and one per dead-letter.
                    now += 2 if count >= drive["maxReceiveCount"] else 1
                else:
                    client.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
                    now += 1  # and one per delete
            clock.move_to(dt.datetime.fromtimestamp(now / 1000, tz=dt.timezone.utc))
        dead = client.receive_message(QueueUrl=dlq, MaxNumberOfMessages=10).get("Messages", [])
        return batches, sorted(m["Body"] for m in dead)


def _text(body):
    return body if isinstance(body, str) else json.dumps(body, separators=(",", ":"), sort_keys=True)


CASES = {
    "standard, one at a time, a redelivery and a dead letter": lambda: sqs(
        "jobs", [{"n": 1, "fail": 1}, {"n": 2}, {"n": 3, "fail": 9}], batch_size=1, max_receive_count=3, visibility_timeout_s=30
    ),
    "standard, a delay against a visibility timeout": lambda: sqs(
        "jobs", [{"n": 1, "fail": 1}, message({"n": 2}, delay_s=45), message({"n": 3}, delay_s=10)],
        batch_size=1, max_receive_count=2, visibility_timeout_s=30,
    ),
    "standard, batches of three with partial failures": lambda: sqs(
        "jobs", [{"n": i, "fail": i % 3} for i in range(1, 8)], batch_size=3, max_receive_count=2, visibility_timeout_s=20
    ),
    "fifo, a failed head holds its group back": lambda: sqs(
        "jobs.fifo",
        [
            message({"n": 1, "fail": 2}, group_id="a", deduplication_id="1"),
            message({"n": 2}, group_id="a", deduplication_id="2"),
            message({"n": 3}, group_id="b", deduplication_id="3"),
        ],
        batch_size=1, max_receive_count=5, visibility_timeout_s=30,
    ),
    "fifo, batches within groups, content-based deduplication": lambda: sqs(
        "jobs.fifo",
        [message({"n": i, "fail": 1 if i == 2 else 0}, group_id="ab"[i % 2]) for i in range(1, 6)],
        batch_size=3, max_receive_count=3, visibility_timeout_s=15, content_based_deduplication=True,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_delivery_model_matches_moto(case):
    drive = CASES[case]()
    model_batches, model_dead = through_the_model(drive)
    moto_batches, moto_dead = through_moto(drive, drive["events"])
    assert moto_batches == model_batches
    assert moto_dead == model_dead
