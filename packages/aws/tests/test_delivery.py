"""The SQS delivery model in virtual time: visibility timeouts, delays, batches, FIFO groups.

The batch handler (``handlers/batch.py``) runs under replayed schedules; the tests read the
effect log's virtual times and what the handler saw.
"""

import json

import pytest

from eutaxy.aws import AwsPlatform, define_scenario, dynamodb_table, handler, message, sqs
from eutaxy.core.effects import VIRTUAL_EPOCH_MS
from eutaxy.core.errors import UserError


def _scenario(messages, *, timeout_ms=3000, bounds=None, queue="jobs", **queue_options):
    # One message per invocation unless a test asks for batches (sqs()'s default is Lambda's 10).
    queue_options.setdefault("batch_size", 1)
    return define_scenario(
        name="batch",
        handler=handler("./handlers/batch.py", timeout_ms=timeout_ms),
        drive=sqs(queue, messages, **queue_options),
        setup=[dynamodb_table("items", {"id": "HASH"})],
        bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 4, **(bounds or {})},
    )


@pytest.fixture(scope="module", name="batch_platform")
def batch_platform_fixture():
    # In this process: the tests read what the handler saw in its module's globals.
    with AwsPlatform.start(_scenario([{"id": "a"}])) as platform:
        yield platform


@pytest.fixture(name="run")
def run_fixture(batch_platform, run_seen):
    def run(scenario, faults=()):
        result, seen = run_seen(batch_platform, scenario, faults=faults)
        assert {"kind": "completed"} == result["end"], result["end"]
        return result, seen

    return run


def _ops(result, op):
    return [e for e in result["effects"] if e["op"] == op and e["kind"] == "result"]


def test_a_failed_message_is_received_again_after_its_visibility_timeout(run):
    result, seen = run(_scenario([{"action": "fail"}], visibility_timeout_s=45, max_receive_count=2))
    assert [VIRTUAL_EPOCH_MS, VIRTUAL_EPOCH_MS + 45_000] == [s["time_ms"] for s in seen]
    (first_retry, _) = _ops(result, "retry")
    assert VIRTUAL_EPOCH_MS + 45_000 == first_retry["payload"]["result"]["visibleAt"]
    (dead,) = _ops(result, "dead_letter")
    assert dead["time"] > VIRTUAL_EPOCH_MS + 45_000  # the trace carries the virtual times
    assert ["1", "2"] == [s["records"][0]["attributes"]["ApproximateReceiveCount"] for s in seen]


def test_a_crash_redelivers_after_the_timeout_and_the_context_counts_down_from_the_function_timeout(run):
    scenario = _scenario([{"id": "a"}], timeout_ms=5000)
    result, seen = run(scenario, faults=[("msg-1#1", 0, "crash_after")])
    assert [5000, 5000] == [s["remaining_ms"] for s in seen]
    assert VIRTUAL_EPOCH_MS + 30_000 == seen[1]["time_ms"]  # the default visibility timeout
    assert ("batch", 2) == (seen[0]["function_name"], len({s["request_id"] for s in seen}))


def test_time_the_handler_sleeps_counts_against_its_deadline(run):
    _, seen = run(_scenario([{"action": "sleep", "seconds": 1}, {"id": "b"}], timeout_ms=3000))
    # Slept a virtual second, then the delete and the output record: a millisecond each.
    assert [VIRTUAL_EPOCH_MS, VIRTUAL_EPOCH_MS + 1002] == [s["time_ms"] for s in seen]


def test_a_handler_past_its_timeout_is_stopped_and_its_message_comes_back_after_the_visibility_timeout(run):
    """Lambda stops the invocation at its timeout: nothing deleted, reason timed_out, received again 30 s on."""
    result, seen = run(_scenario([{"action": "sleep", "seconds": 5}], timeout_ms=3000, max_receive_count=2))
    assert [VIRTUAL_EPOCH_MS, VIRTUAL_EPOCH_MS + 30_000] == [s["time_ms"] for s in seen]
    assert [] == _ops(result, "delete")
    retries = _ops(result, "retry")
    assert ["timed_out", "timed_out"] == [r["payload"]["args"]["reason"] for r in retries]
    # Stopped at the timeout's virtual time, not after the 5 s sleep it asked for.
    assert VIRTUAL_EPOCH_MS + 3000 == retries[0]["time"]
    assert VIRTUAL_EPOCH_MS + 30_000 == retries[0]["payload"]["result"]["visibleAt"]
    (dead,) = _ops(result, "dead_letter")
    assert 2 == dead["payload"]["args"]["attempts"]


def test_a_delivery_delay_holds_a_message_back(run):
    _, seen = run(_scenario([message({"id": "late"}, delay_s=5), {"id": "early"}], delay_s=0))
    assert [["msg-2"], ["msg-1"]] == [s["ids"] for s in seen]
    assert VIRTUAL_EPOCH_MS + 5000 == seen[1]["time_ms"]


def test_a_standard_queue_delivers_the_next_message_while_a_failed_one_waits(run):
    _, seen = run(_scenario([{"action": "fail"}, {"id": "b"}], max_receive_count=2))
    assert [["msg-1"], ["msg-2"], ["msg-1"]] == [s["ids"] for s in seen]


def test_the_visibility_timeout_may_not_be_below_the_function_timeout():
    with pytest.raises(UserError, match="visibility timeout"):
        _scenario([{"id": "a"}], timeout_ms=60_000, visibility_timeout_s=30)


def test_a_batch_deletes_what_succeeded_and_redelivers_what_it_reported(run):
    result, seen = run(_scenario([{"id": "a"}, {"action": "report"}, {"id": "c"}], batch_size=10, max_receive_count=2))
    assert [["msg-1", "msg-2", "msg-3"], ["msg-2"]] == [s["ids"] for s in seen]
    assert ["msg-1", "msg-3"] == [e["payload"]["args"]["messageId"] for e in _ops(result, "delete")]
    assert "batch_item_failure" == _ops(result, "retry")[0]["payload"]["args"]["reason"]
    assert "msg-1#1" == _ops(result, "delete")[0]["invocation"]
    # A batch of several names its messages (the shrinker removes one from inside it); one of one names none.
    assert [["msg-1", "msg-2", "msg-3"], None] == [one.get("messages") for one in result["invocations"]]


def test_without_report_batch_item_failures_a_reported_failure_is_ignored(run):
    result, seen = run(_scenario([{"id": "a"}, {"action": "report"}], batch_size=10, report_batch_item_failures=False))
    assert 1 == len(seen) and 2 == len(_ops(result, "delete"))


def test_an_error_returns_the_whole_batch_and_an_invalid_answer_does_too(run):
    result, seen = run(_scenario([{"id": "a"}, {"action": "fail"}], batch_size=2, max_receive_count=1))
    assert ["msg-1", "msg-2"] == [e["payload"]["args"]["messageId"] for e in _ops(result, "dead_letter")]
    result, _ = run(_scenario([{"action": "bad-report"}, {"id": "b"}], batch_size=2, max_receive_count=1))
    assert {"invalid_batch_response"} == {e["payload"]["args"]["reason"] for e in _ops(result, "retry")}


def test_a_batching_window_waits_for_a_fuller_batch(run):
    messages = [{"id": "a"}, message({"id": "b"}, delay_s=2), message({"id": "c"}, delay_s=9)]
    _, seen = run(_scenario(messages, batch_size=3, batching_window_s=5))
    assert [["msg-1", "msg-2"], ["msg-3"]] == [s["ids"] for s in seen]
    assert VIRTUAL_EPOCH_MS + 5000 == seen[0]["time_ms"]  # the window ran out before the batch filled


def test_message_and_system_attributes_reach_the_record(run):
    sent = message({"id": "a"}, attributes={"kind": "order", "n": 3, "raw": b"\x01"}, system_attributes={"AWSTraceHeader": "Root=1"})
    _, seen = run(_scenario([sent]))
    (record,) = seen[0]["records"]
    assert {"dataType": "String", "stringValue": "order", "stringListValues": [], "binaryListValues": []} == record[
        "messageAttributes"
    ]["kind"]
    assert ("Number", "3") == (record["messageAttributes"]["n"]["dataType"], record["messageAttributes"]["n"]["stringValue"])
    assert "AQ==" == record["messageAttributes"]["raw"]["binaryValue"]
    assert "Root=1" == record["attributes"]["AWSTraceHeader"]
    assert 32 == len(record["md5OfMessageAttributes"])


def test_the_handler_output_is_captured_per_invocation(run, capfd):
    result, _ = run(_scenario([{"id": "a"}]))
    (output,) = _ops(result, "output")
    assert ("Lambda:batch", "msg-1#1") == (output["target"], output["invocation"])
    assert 'handling msg-1\nbody {"id":"a"}\n' == output["payload"]["args"]["text"]
    captured = capfd.readouterr()
    assert "handling" not in captured.out and "handling" not in captured.err


def _fifo(messages, **options):
    return _scenario(messages, queue="jobs.fifo", max_receive_count=2, **options)


def test_a_fifo_queue_carries_its_attributes_and_keeps_each_group_in_order(run):
    messages = [
        message({"action": "fail"}, group_id="g1", deduplication_id="d1"),
        message({"id": "b"}, group_id="g1", deduplication_id="d2"),
        message({"id": "c"}, group_id="g2", deduplication_id="d3"),
    ]
    result, seen = run(_fifo(messages))
    # msg-2 waits behind the failed msg-1 until it is dead-lettered; g2 goes on meanwhile.
    assert [["msg-1"], ["msg-3"], ["msg-1"], ["msg-2"]] == [s["ids"] for s in seen]
    attributes = seen[0]["records"][0]["attributes"]
    assert ("g1", "d1") == (attributes["MessageGroupId"], attributes["MessageDeduplicationId"])
    sequence = [int(s["records"][0]["attributes"]["SequenceNumber"]) for s in seen]
    assert sequence[0] < sequence[3]


def test_a_fifo_batch_takes_a_group_in_order(run):
    messages = [message({"id": str(i)}, group_id="g", deduplication_id=str(i)) for i in range(3)]
    _, seen = run(_fifo(messages, batch_size=10))
    assert [["msg-1", "msg-2", "msg-3"]] == [s["ids"] for s in seen]


def test_fifo_deduplication_drops_a_repeated_message():
    drive = sqs("jobs.fifo", [message("x", group_id="g"), message("x", group_id="g")], content_based_deduplication=True)
    assert ["msg-1"] == [e["id"] for e in drive["events"]]
    assert [{"id": "msg-2", "duplicateOf": "msg-1"}] == [
        {k: d[k] for k in ("id", "duplicateOf")} for d in drive["deduplicated"]
    ]
    with pytest.raises(UserError, match="deduplication id"):
        sqs("jobs.fifo", [message("x", group_id="g")])
    with pytest.raises(UserError, match="group id"):
        _fifo([message("x", deduplication_id="1")])


def test_records_bodies_are_the_canonical_json_text(run):
    _, seen = run(_scenario([{"id": "a", "b": [1, 2]}]))
    assert {"id": "a", "b": [1, 2]} == json.loads(seen[0]["records"][0]["body"])


def test_a_batch_decision_takes_the_first_k_waiting_messages_and_leaves_the_rest_for_the_next_poll(batch_platform, run_seen):
    """maxShortBatches 1: the first poll of three offers [3, 1, 2]; a forced 2 takes msg-1 and msg-2."""
    scenario = _scenario([{"id": "a"}, {"id": "b"}, {"id": "c"}], batch_size=10)
    result, seen = run_seen(batch_platform, scenario, prefix=[2], max_short_batches=1)
    assert [["msg-1", "msg-2"], ["msg-3"]] == [s["ids"] for s in seen]
    # One decision: the second poll holds one message, and the bound is spent anyway.
    assert [{"kind": "batch", "invocation": "msg-1#1", "target": "SQS:jobs", "options": [3, 1, 2], "chosen": 2}] == [
        d for d in result["decisions"] if d["kind"] == "batch"
    ]


def test_short_batches_replay_by_invocation_and_none_are_offered_at_bound_zero(batch_platform, run_seen):
    """Replay names a short batch by the invocation its poll starts; maxShortBatches 0 offers none."""
    scenario = _scenario([{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "d"}], batch_size=10)
    replay = {"kind": "replay", "faults": [], "turns": [], "batches": [{"invocation": "msg-1#1", "size": 1}]}
    result, seen = run_seen(batch_platform, scenario, policy=replay, max_short_batches=2)
    assert [["msg-1"], ["msg-2", "msg-3", "msg-4"]] == [s["ids"] for s in seen]
    # The second poll of three is offered too (one short batch left), and takes the platform's batch.
    assert [("msg-1#1", 1), ("msg-2#1", 0)] == [(d["invocation"], d["chosen"]) for d in result["decisions"] if d["kind"] == "batch"]
    result, seen = run_seen(batch_platform, scenario, policy=replay, max_short_batches=0)
    assert [["msg-1", "msg-2", "msg-3", "msg-4"]] == [s["ids"] for s in seen]
    assert [] == [d for d in result["decisions"] if d["kind"] == "batch"]
