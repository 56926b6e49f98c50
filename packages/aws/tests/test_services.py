"""SQS sends, S3, SNS and EventBridge through the boundary: effects with ladders, on moto."""

import pytest

from eutaxy.aws import (
    AwsPlatform,
    define_scenario,
    dynamodb_table,
    event_bus,
    handler,
    s3_bucket,
    sns_topic,
    sqs,
    sqs_queue,
)


def _scenario(bodies, queue="jobs"):
    return define_scenario(
        name="services",
        handler=handler("./handlers/services.py"),
        drive=sqs(queue, bodies, batch_size=1),  # one message per invocation
        setup=[
            dynamodb_table("items", "id"),
            sqs_queue("outbox"),
            sqs_queue("outbox.fifo"),
            s3_bucket("docs", {"seed.txt": "seeded"}),
            sns_topic("alerts"),
            event_bus(),
        ],
        bounds={"maxRedeliveries": 1},
    )


@pytest.fixture(scope="module", name="platform")
def platform_fixture():
    # In this process: the tests read what the handler saw in its module's globals.
    with AwsPlatform.start(_scenario([{"action": "list"}])) as platform:
        yield platform


@pytest.fixture(name="run")
def run_fixture(platform, run_seen):
    def run(bodies, faults=(), queue="jobs"):
        return run_seen(platform, _scenario(bodies, queue), faults=faults)

    return run


def _snapshot(result, target):
    (snap,) = [e for e in result["effects"] if e["kind"] == "snapshot" and e["target"] == target]
    return snap["payload"]["rows"]


def _results(result, op):
    return [e for e in result["effects"] if e["op"] == op and e["kind"] == "result"]


def test_a_message_sent_to_the_driven_queue_is_delivered_later_in_the_run(run):
    result, seen = run([{"action": "forward", "queue": "jobs", "payload": {"action": "list"}}])
    assert ["forward", "list"] == [s["action"] for s in seen]
    assert "sent-1" == seen[1]["messageId"]
    assert ("x", "AQ==") == (seen[1]["attributes"]["kind"]["stringValue"], seen[1]["attributes"]["raw"]["binaryValue"])
    (send,) = _results(result, "SendMessage")
    assert ("SQS:jobs", {"action": "list"}) == (send["target"], send["payload"]["args"]["body"])
    assert {"ok": True, "messageId": "sent-1", "deduplicated": False} == send["payload"]["result"]


def test_a_declared_queue_keeps_what_was_sent_and_a_fifo_queue_drops_a_duplicate(run):
    bodies = [{"action": "forward", "queue": "outbox.fifo", "payload": {"n": 1}, "dedup": "d"}] * 2
    result, _ = run(bodies)
    assert [False, True] == [e["payload"]["result"]["deduplicated"] for e in _results(result, "SendMessage")]
    assert [{"messageId": "sent-1", "body": {"n": 1}, "groupId": "g", "deduplicationId": "d"}] == _snapshot(result, "SQS:outbox.fifo")


def test_a_fault_on_a_send_is_the_write_ladder(run):
    result, seen = run([{"action": "forward", "queue": "outbox", "payload": {}}], faults=[("msg-1#1", 1, "error")])
    assert "InternalError" == seen[0]["error"]
    assert [] == _snapshot(result, "SQS:outbox")
    result, _ = run([{"action": "forward", "queue": "outbox", "payload": {}}], faults=[("msg-1#1", 1, "crash_after")])
    assert 2 == len(_snapshot(result, "SQS:outbox"))  # sent, crashed, redelivered, sent again


def test_s3_objects_are_written_read_and_snapshotted_on_moto(run):
    result, seen = run([
        {"action": "put", "key": "a.txt", "text": "hello"},
        {"action": "get", "key": "a.txt"},
        {"action": "delete", "key": "seed.txt"},
        {"action": "get", "key": "missing"},
    ])
    assert "hello" == seen[1]["text"]
    assert "NoSuchKey" == seen[3]["error"]
    assert [{"key": "a.txt", "body": "hello"}] == _snapshot(result, "S3:docs")
    (put,) = _results(result, "PutObject")
    assert ("S3:docs", "hello") == (put["target"], put["payload"]["args"]["body"])
    # The next run starts from the seed again.
    result, seen = run([{"action": "list"}])
    assert ["seed.txt"] == seen[0]["keys"]


def test_sns_and_eventbridge_calls_are_recorded_and_snapshotted(run):
    result, _ = run([{"action": "publish", "payload": {"n": 1}}, {"action": "event", "payload": {"n": 2}}])
    assert [{"body": {"n": 1}}] == _snapshot(result, "SNS:alerts")
    (entry,) = _snapshot(result, "EventBridge:default")
    assert ({"n": 2}, "shop") == (entry["detail"], entry["Source"])


def test_the_same_plan_gives_byte_identical_results_across_services(run):
    bodies = [{"action": "publish", "payload": {}}, {"action": "event", "payload": {}}, {"action": "put", "key": "k", "text": "t"}]
    assert run(bodies)[0] == run(bodies)[0]


def test_another_service_is_unsupported_naming_it_the_operation_and_the_invocation(run):
    result, _ = run([{"action": "lambda"}])
    assert "client_not_supported" == result["end"]["cause"]
    assert "msg-1#1 called Lambda ListFunctions" in result["end"]["detail"]


def test_a_send_to_an_undeclared_queue_is_unsupported(run):
    result, _ = run([{"action": "forward", "queue": "elsewhere", "payload": {}}])
    assert "client_not_supported" == result["end"]["cause"]
    assert "sqs_queue('elsewhere')" in result["end"]["detail"]


def test_a_batch_send_to_the_driven_queue_delivers_each_entry_later_in_the_run(run):
    """SendMessageBatch is one effect point; each entry is a message of its own, delivered in order."""
    result, seen = run([{"action": "batch", "queue": "jobs", "payloads": [{"action": "list"}, {"action": "publish", "payload": {"n": 3}}]}])
    assert ["batch", "list", "publish"] == [s["action"] for s in seen]
    assert ["sent-1", "sent-2"] == [s["messageId"] for s in seen[1:]]
    assert ["0", "1"] == [entry["Id"] for entry in seen[0]["answer"]["Successful"]]
    assert [] == seen[0]["answer"]["Failed"]
    (send,) = _results(result, "SendMessageBatch")
    assert "SQS:jobs" == send["target"]
    assert [{"action": "list"}, {"action": "publish", "payload": {"n": 3}}] == [e["body"] for e in send["payload"]["args"]["Entries"]]
    assert ["sent-1", "sent-2"] == [e["messageId"] for e in send["payload"]["result"]["entries"]]
    assert [{"body": {"n": 3}}] == _snapshot(result, "SNS:alerts")


def test_a_batch_send_to_a_declared_queue_is_its_snapshot_and_a_crash_after_sends_it_twice(run):
    """A batch commits all its entries at once: crash_after on it, then the redelivery, leaves four messages."""
    body = {"action": "batch", "queue": "outbox", "payloads": [{"n": 1}, {"n": 2}]}
    result, _ = run([body])
    assert [{"n": 1}, {"n": 2}] == [row["body"] for row in _snapshot(result, "SQS:outbox")]
    result, _ = run([body], faults=[("msg-1#1", 1, "crash_after")])
    assert [{"n": 1}, {"n": 1}, {"n": 2}, {"n": 2}] == [row["body"] for row in _snapshot(result, "SQS:outbox")]  # rows sorted


def test_an_ambiguous_send_commits_and_the_handler_sees_a_timeout_naming_no_real_endpoint(run):
    """ambiguous on SendMessage: the message is in the queue, the handler got a timeout instead of the answer."""
    result, seen = run([{"action": "forward", "queue": "outbox", "payload": {"n": 1}}], faults=[("msg-1#1", 1, "ambiguous")])
    assert seen[0]["error"].startswith("ReadTimeoutError")
    assert "sqs.simulated.invalid" in seen[0]["error"]
    assert "answer" not in seen[0]
    assert [{"n": 1}] == [row["body"] for row in _snapshot(result, "SQS:outbox")]
    (fault,) = [e for e in result["effects"] if e["kind"] == "fault"]
    assert ("SQS:outbox", "SendMessage", "ambiguous") == (fault["target"], fault["op"], fault["payload"]["fault"])


#: Per service: the message that makes its write, the target and the op.
_WRITES = {
    "s3": ({"action": "put", "key": "k.txt", "text": "t"}, "S3:docs", "PutObject"),
    "sns": ({"action": "publish", "payload": {"n": 1}}, "SNS:alerts", "Publish"),
    "eventbridge": ({"action": "event", "payload": {"n": 1}}, "EventBridge:default", "PutEvents"),
}
#: Per fault: how many times the write commits (the handler catches an error and a timeout,
#: so only a crash brings a redelivery), and what the handler saw on the first attempt.
_LADDER = {
    "crash_before": (1, None),
    "crash_after": (2, None),
    "ambiguous": (1, "ReadTimeoutError"),
    "error": (0, "InternalError"),
}


@pytest.mark.parametrize("fault", sorted(_LADDER))
@pytest.mark.parametrize("service", sorted(_WRITES))
def test_a_write_to_s3_sns_or_eventbridge_takes_the_write_ladder(run, service, fault):
    """Each of the four write faults lands on the call, with the outcome AWS would give."""
    body, target, op = _WRITES[service]
    commits, error = _LADDER[fault]
    result, seen = run([body], faults=[("msg-1#1", 0, fault)])
    (injected,) = [e for e in result["effects"] if e["kind"] == "fault"]
    assert (target, op, 0, fault) == (injected["target"], injected["op"], injected["ordinal"], injected["payload"]["fault"])
    assert commits == len([e for e in _results(result, op) if e["payload"]["result"]["ok"]])
    assert error == (seen[0]["error"].split(":")[0] if "error" in seen[0] else None)
    if service == "s3":
        assert (commits > 0) == ("k.txt" in [row["key"] for row in _snapshot(result, "S3:docs")])
    else:
        assert commits == len(_snapshot(result, target))


def test_sends_beyond_the_runs_bound_make_it_unsupported(platform, plan):
    """bounds.producedMessagesMax caps the messages a run's handler sends; one more is UNSUPPORTED, never dropped."""
    scenario = _scenario([{"action": "forward", "queue": "outbox", "payload": {"n": n}} for n in (1, 2)])
    within = platform.run(plan({**scenario, "bounds": {"maxRedeliveries": 1, "producedMessagesMax": 2}})).to_data()
    assert {"kind": "completed"} == within["end"]
    beyond = platform.run(plan({**scenario, "bounds": {"maxRedeliveries": 1, "producedMessagesMax": 1}})).to_data()
    assert ("unsupported", "produced_message_limit") == (beyond["end"]["kind"], beyond["end"]["cause"])
    assert "msg-2#1 sent message 2 of the run (SQS SendMessage to outbox)" in beyond["end"]["detail"]
