"""The AWS platform against moto's server: the boundary, the delivery model, reset and snapshots.

Each test runs the probe handler (``handlers/probe.py``) on a few messages under a replayed
schedule and reads the effect log, the snapshots and what the handler saw.
"""

import json
import os
import random

import pytest

from eutaxy.aws import create_platform, define_scenario, dynamodb_table, handler, message, sqs
from eutaxy.core.effects import VIRTUAL_EPOCH_MS
from eutaxy.core.errors import UserError


def _effects(result, kind=None, op=None):
    return [
        (e["invocation"], e["ordinal"], e["target"], e["op"], e["kind"])
        for e in result["effects"]
        if (kind is None or e["kind"] == kind) and (op is None or e["op"] == op)
    ]


def _rows(result, table):
    (snapshot,) = [e for e in result["effects"] if e["kind"] == "snapshot" and e["target"] == f"DynamoDB:{table}"]
    assert "items" == snapshot["op"]
    return snapshot["payload"]["rows"]


def test_a_resource_put_is_one_low_level_effect_with_plain_arguments(run_probe):
    """Table.put_item is recorded as PutItem on DynamoDB:items, attribute values unwrapped."""
    result, seen = run_probe([{"id": "a"}])
    assert {"kind": "completed"} == result["end"]
    assert [
        ("msg-1#1", 0, "DynamoDB:items", "PutItem", "call"),
        ("msg-1#1", 0, "DynamoDB:items", "PutItem", "result"),
        ("msg-1#1", 1, "SQS:jobs", "delete", "call"),
        ("msg-1#1", 1, "SQS:jobs", "delete", "result"),
    ] == _effects(result)[:4]
    put = result["effects"][1]["payload"]
    item = put["args"]["Item"]
    # Binary and sets in the log's value encoding (eutaxy.core.values).
    assert ("a", 2, {"$": "bytes", "v": "AAE="}, {"$": "set", "v": ["a", "b"]}) == (item["id"], item["n"], item["blob"], item["tags"])
    assert {"ok": True} == put["result"]
    delete = result["effects"][3]["payload"]["args"]
    assert {"messageId": "msg-1", "body": {"id": "a"}, "implicit": True} == delete
    assert 2 == result["eligible"]


def test_the_probe_handlers_effects_carry_its_lines_and_the_platforms_carry_none(run_probe):
    """A real run: the PutItem of handlers/probe.py at its line; the implicit SQS delete is the platform's."""
    result, _ = run_probe([{"id": "a"}])
    sources = {(e["target"], e["op"]): e.get("source") for e in result["effects"] if e["kind"] == "call"}
    with open(os.path.join(os.path.dirname(__file__), "handlers", "probe.py"), encoding="utf-8") as file:
        lines = file.read().split("\n")
    line = next(index for index, text in enumerate(lines) if "table.put_item(" in text) + 1
    column = lines[line - 1].index("table.put_item(") + 1
    assert {"file": "handlers/probe.py", "line": line, "column": column} == sources[("DynamoDB:items", "PutItem")]
    assert sources[("SQS:jobs", "delete")] is None


def test_reset_seeds_the_tables_and_the_snapshot_reads_them_as_plain_json(run_probe):
    result, _ = run_probe([{"id": "a"}])
    rows = _rows(result, "items")
    assert [r["id"] for r in rows] == ["a", "seeded"]
    assert {"id": "seeded", "n": 1.5, "nested": {"l": [1, "x", None]}} == rows[1]
    assert {"$": "set", "v": ["a", "b"]} == rows[0]["tags"]
    assert [] == _rows(result, "audit")
    # A second run starts from the seed again, not from the first run's writes.
    again, _ = run_probe([{"action": "get", "id": "a"}])
    assert ["seeded"] == [r["id"] for r in _rows(again, "items")]


def test_the_event_and_context_follow_the_sqs_event_source(run_probe):
    _, seen = run_probe([{"id": "a"}, {"action": "fail", "id": "b"}], bounds={"maxRedeliveries": 1})
    first, second, second_again = seen
    (record,) = first["event"]["Records"]
    assert ("msg-1", '{"id":"a"}', "1", "aws:sqs") == (
        record["messageId"], record["body"], record["attributes"]["ApproximateReceiveCount"], record["eventSource"]
    )
    assert record["eventSourceARN"].endswith(":jobs")
    assert "2" == second_again["event"]["Records"][0]["attributes"]["ApproximateReceiveCount"]
    assert len({first["request_id"], second["request_id"], second_again["request_id"]}) == 3
    assert VIRTUAL_EPOCH_MS / 1000 == first["time"]
    assert 1000 == first["remaining_ms"]
    assert 999 == first["after_put_remaining_ms"]  # one completed effect, one virtual millisecond


def test_crash_before_a_write_performs_nothing_and_the_message_is_received_again(run_probe):
    result, seen = run_probe([{"id": "a"}], faults=[("msg-1#1", 0, "crash_before")])
    assert [("msg-1#1", 0, "DynamoDB:items", "PutItem", "call"), ("msg-1#1", 0, "DynamoDB:items", "PutItem", "fault")] == _effects(result)[:2]
    assert ["msg-1#2"] == sorted({i for i, *_ in _effects(result, op="delete", kind="result")})
    assert 2 == len(seen)
    assert ["a", "seeded"] == [r["id"] for r in _rows(result, "items")]


def test_crash_after_a_write_commits_it_and_the_redelivery_writes_again(run_probe):
    result, _ = run_probe([{"id": "a"}], faults=[("msg-1#1", 0, "crash_after")])
    assert ["result", "fault"] == [k for i, o, t, op, k in _effects(result) if i == "msg-1#1" and o == 0][1:]
    assert 2 == len(_effects(result, kind="result", op="PutItem"))


def test_an_injected_error_is_a_client_error_the_handler_sees(run_probe):
    result, seen = run_probe([{"id": "a"}], faults=[("msg-1#1", 0, "error")])
    assert "InternalServerError" == seen[0]["error"]
    assert "error" == result["effects"][1]["payload"]["fault"]
    assert "msg-1#2" in {i for i, *_ in _effects(result, op="delete", kind="result")}


def test_ambiguous_commits_and_the_handler_sees_a_timeout(run_probe):
    result, seen = run_probe([{"id": "a"}], faults=[("msg-1#1", 0, "ambiguous")])
    assert "ReadTimeoutError" == seen[0]["error"]
    assert [("msg-1#1", 0, "DynamoDB:items", "PutItem", k) for k in ("call", "result", "fault")] == _effects(result)[:3]


def test_a_read_takes_the_read_ladder(run_probe):
    result, seen = run_probe([{"action": "get", "id": "seeded"}], max_faults=1, prefix=[0])
    fault_options = [d["options"] for d in result["decisions"]]
    assert ["none", "crash_before", "crash_after", "error"] == fault_options[0]
    assert {"id": "seeded", "n": 1.5, "nested": {"l": [1, "x", None]}} == result["effects"][1]["payload"]["result"]["Item"]
    assert "seeded" == seen[0]["item"]["id"]


def test_a_failed_condition_is_a_result_that_is_not_ok(run_probe):
    result, seen = run_probe([{"action": "conditional", "id": "seeded"}], bounds={"maxRedeliveries": 0})
    put = result["effects"][1]["payload"]["result"]
    assert {"ok": False, "error": {"code": "ConditionalCheckFailedException", "message": "The conditional request failed"}} == put
    assert "ConditionalCheckFailedException" == seen[0]["error"]


def test_crashes_on_the_implicit_delete_fall_between_handled_and_deleted(run_probe):
    before, _ = run_probe([{"id": "a"}], faults=[("msg-1#1", 1, "crash_before")])
    assert {"msg-1#1", "msg-1#2"} == {i for i, *_ in _effects(before, op="PutItem", kind="result")}
    (retry,) = [e for e in before["effects"] if e["op"] == "retry" and e["kind"] == "result"]
    assert ("msg-1#1", 2, "not_deleted") == (retry["invocation"], retry["ordinal"], retry["payload"]["args"]["reason"])
    after, _ = run_probe([{"id": "a"}], faults=[("msg-1#1", 1, "crash_after")])
    assert {"msg-1#1"} == {i for i, *_ in _effects(after, op="PutItem", kind="result")}
    assert [("msg-1#1", 1, "SQS:jobs", "delete", k) for k in ("call", "result", "fault")] == _effects(after, op="delete")


def test_errors_and_reported_failures_redeliver_then_dead_letter_at_max_receive_count(run_probe):
    result, seen = run_probe([{"action": "fail"}], max_receive_count=2, bounds={"maxRedeliveries": 5})
    assert 2 == len(seen)
    assert [("msg-1#1", 0, "SQS:jobs", "retry", "result"), ("msg-1#2", 0, "SQS:jobs", "retry", "result")] == _effects(result, op="retry", kind="result")
    assert {"messageId": "msg-1", "body": {"action": "fail"}, "implicit": True, "reason": "error", "error": "RuntimeError"} == result["effects"][1]["payload"]["args"]
    assert [("msg-1#2", 1, "SQS:jobs", "dead_letter", "call"), ("msg-1#2", 1, "SQS:jobs", "dead_letter", "result")] == _effects(result, op="dead_letter")
    assert {"messageId": "msg-1", "attempts": 2} == result["effects"][-4]["payload"]["args"]
    reported, seen = run_probe([{"action": "report"}], max_receive_count=5, bounds={"maxRedeliveries": 1})
    assert 2 == len(seen)
    assert ["batch_item_failure"] * 2 == [e["payload"]["args"]["reason"] for e in reported["effects"] if e["op"] == "retry" and e["kind"] == "result"]
    assert [] == _effects(reported, op="dead_letter")  # the scenario's bound stopped it first
    assert [] == _effects(reported, op="delete")


def test_a_transaction_names_every_table_it_joins(run_probe):
    result, _ = run_probe([{"action": "transact", "id": "t"}])
    assert ("DynamoDB:audit+items", "TransactWriteItems") == (result["effects"][0]["target"], result["effects"][0]["op"])
    assert [{"id": "t"}] == _rows(result, "audit")


def test_a_client_of_another_service_makes_the_run_unsupported(run_probe):
    result, _ = run_probe([{"action": "sqs"}])
    assert "unsupported" == result["end"]["kind"]
    assert "client_not_supported" == result["end"]["cause"]
    assert "SQS" in result["end"]["detail"] and "SendMessage" in result["end"]["detail"]


def test_a_dynamodb_operation_outside_the_model_makes_the_run_unsupported(run_probe):
    result, _ = run_probe([{"action": "create"}])
    assert ("unsupported", "operation_not_supported") == (result["end"]["kind"], result["end"]["cause"])
    assert "CreateTable" in result["end"]["detail"]


def test_more_than_one_concurrent_invocation_is_unsupported(probe_platform, probe_scenario, plan):
    scenario = probe_scenario([{"id": "a"}], bounds={"maxConcurrentInvocations": 2})
    result = probe_platform.run(plan(scenario)).to_data()
    assert ("unsupported", "concurrency_not_supported") == (result["end"]["kind"], result["end"]["cause"])
    assert [] == result["effects"]


@pytest.mark.parametrize("bound", ["maxRedeliveries", "maxConcurrentInvocations"])
def test_a_plan_without_a_resolved_bound_is_refused_naming_it(probe_platform, probe_scenario, plan, bound):
    """with_bounds writes every bound into a plan; one without it is Eutaxy's bug, never read as a default."""
    data = plan(probe_scenario([{"id": "a"}]))
    del data["scenario"]["bounds"][bound]
    with pytest.raises(ValueError, match=f"plan: scenario.bounds.{bound}: expected an integer"):
        probe_platform.run(data)


def test_the_same_plan_gives_byte_identical_results(run_probe):
    """uuid4 in the handler, request ids and times all come from the plan."""
    policy = {"kind": "seeded", "faults": {"1": 3}}
    first, _ = run_probe([{"id": "a"}, {"id": "b"}], policy=policy)
    second, _ = run_probe([{"id": "a"}, {"id": "b"}], policy=policy)
    assert first == second
    tokens = [e["payload"]["args"]["Item"]["token"] for e in first["effects"] if e["op"] == "PutItem" and e["kind"] == "call"]
    assert len(set(tokens)) == len(tokens)


def test_the_real_globals_are_back_after_a_run_even_one_that_failed(run_probe):
    real_urandom = os.urandom
    random.seed(5)
    expected = random.random()
    random.seed(5)
    run_probe([{"action": "fail"}, {"action": "sqs"}])
    assert os.urandom is real_urandom
    assert expected == random.random()


def test_a_module_calling_dynamodb_at_import_is_refused(probe_scenario):
    scenario = probe_scenario([{"id": "a"}], path="./handlers/import_time_call.py")
    with pytest.raises(UserError, match="while it was imported"):
        create_platform(scenario)


def test_describe_names_the_local_dynamodb(probe_platform):
    described = probe_platform.describe()
    assert "aws" == described["platform"]
    assert "moto" in described["dynamodb"]
    assert any("moto" in line for line in described["assumptions"])


def test_an_unreachable_endpoint_is_a_user_error():
    scenario = define_scenario(
        name="nowhere",
        handler=handler("./handlers/probe.py"),
        drive=sqs("jobs", [{"id": "a"}]),
        setup=[dynamodb_table("items", {"id": "HASH"})],
        dynamodb_endpoint="http://127.0.0.1:9",
    )
    with pytest.raises(UserError, match="does not answer"):
        create_platform(scenario)


def test_describe_table_is_a_read_recorded_without_the_services_clock_or_ids(run_probe, probe_platform, probe_scenario, plan):
    """Tables are re-created with new timestamps and ids; the log must not show them."""
    client = probe_platform.handler.__globals__["client"]
    results = []
    for _ in range(2):
        scenario = probe_scenario([{"action": "describe"}])
        results.append(probe_platform.run(plan(scenario)).to_data())
        # A full reset re-creates the tables, with a new creation time and table id.
        probe_platform.tables.forget()
    assert results[0] == results[1]
    (described,) = [e for e in results[0]["effects"] if e["op"] == "DescribeTable" and e["kind"] == "result"]
    table = described["payload"]["result"]["Table"]
    assert ("items", "ACTIVE") == (table["TableName"], table["TableStatus"])
    assert "CreationDateTime" not in table and "TableId" not in table
    assert client is not None


def test_reset_puts_the_tables_back_after_a_run_that_wrote_and_deleted(run_probe):
    """The quick reset (from the last snapshot's keys) gives the seeded state again."""
    run_probe([{"id": "x"}, {"id": "y"}])
    again, _ = run_probe([{"action": "get", "id": "x"}])
    assert ["seeded"] == [row["id"] for row in _rows(again, "items")]
    unsupported, _ = run_probe([{"id": "z"}, {"action": "sqs"}])
    assert "unsupported" == unsupported["end"]["kind"]
    after, _ = run_probe([{"action": "get", "id": "z"}])
    assert ["seeded"] == [row["id"] for row in _rows(after, "items")]
    assert after["effects"][1]["payload"]["result"] == {"ok": True}


def test_a_resource_batch_writer_is_one_batch_write_effect(run_probe):
    result, _ = run_probe([{"action": "batch", "id": "b"}])
    (batch,) = [e for e in result["effects"] if e["op"] == "BatchWriteItem" and e["kind"] == "result"]
    assert "DynamoDB:items" == batch["target"]
    puts = batch["payload"]["args"]["RequestItems"]["items"]
    assert [{"PutRequest": {"Item": {"id": f"b-{i}"}}} for i in range(3)] == puts
    assert ["b-0", "b-1", "b-2", "seeded"] == [row["id"] for row in _rows(result, "items")]


def test_a_partial_batch_write_writes_the_first_half_and_answers_the_rest_unprocessed(run_probe):
    """Under ``partial`` the batch writes b-0 only; b-1 and b-2 come back in UnprocessedItems,
    which boto3's batch writer sends again as a second BatchWriteItem."""
    result, _ = run_probe([{"action": "batch", "id": "b"}], faults=[("msg-1#1", 0, "partial")])
    first, second = [e for e in result["effects"] if e["op"] == "BatchWriteItem" and e["kind"] == "result"]
    puts = first["payload"]["args"]["RequestItems"]["items"]
    assert {"items": puts[1:]} == first["payload"]["result"]["UnprocessedItems"]
    (fault,) = [e for e in result["effects"] if e["kind"] == "fault"]
    assert ("partial", first["ordinal"]) == (fault["payload"]["fault"], fault["ordinal"])
    assert {"UnprocessedItems": {"items": puts[1:]}} == fault["payload"]["left"]
    assert puts[1:] == second["payload"]["args"]["RequestItems"]["items"]
    assert ["b-0", "b-1", "b-2", "seeded"] == [row["id"] for row in _rows(result, "items")]
    options, _ = run_probe([{"action": "batch", "id": "b"}], prefix=[0])
    assert ["none", "crash_before", "crash_after", "ambiguous", "error", "partial"] == options["decisions"][0]["options"]


def test_a_transaction_fails_as_a_whole_and_takes_no_partial_fault(run_probe):
    """TransactWriteItems keeps the write ladder (it is all or nothing): an injected error commits none of it."""
    options, _ = run_probe([{"action": "transact", "id": "t"}], prefix=[0])
    assert ["none", "crash_before", "crash_after", "ambiguous", "error"] == options["decisions"][0]["options"]
    result, _ = run_probe([{"action": "transact", "id": "t"}], faults=[("msg-1#1", 0, "error")])
    first = [e["kind"] for e in result["effects"] if (e["invocation"], e["ordinal"]) == ("msg-1#1", 0)]
    assert ["call", "fault"] == first, "the failed transaction sent nothing, so nothing of it committed"


def test_a_seeded_item_is_what_the_handler_reads_and_survives_to_the_snapshot(run_probe):
    """The seed is in the table when the handler runs (a GetItem finds it) and in the snapshot after."""
    result, seen = run_probe([{"action": "get", "id": "seeded"}])
    assert {"id": "seeded", "n": 1.5, "nested": {"l": [1, "x", None]}} == _plain(seen[0]["item"])
    assert [{"id": "seeded", "n": 1.5, "nested": {"l": [1, "x", None]}}] == _rows(result, "items")


def _plain(value):
    """boto3's resource answer as plain JSON (its numbers are Decimals)."""
    return json.loads(json.dumps(value, default=float))


def test_messages_are_sent_at_their_at_ms_and_a_visibility_timeout_due_first_comes_first(run_probe):
    """msg-1 fails at the start and is visible again 30 s later (the visibility timeout); msg-2, sent
    at 10 s, comes before that redelivery, and msg-3, sent at 60 s, after it."""
    result, seen = run_probe(
        [message({"action": "fail", "id": "a"}), message({"id": "b"}, at_ms=10_000), message({"id": "c"}, at_ms=60_000)],
        bounds={"maxRedeliveries": 1},
    )
    invocations = [e["invocation"] for e in result["effects"] if e["kind"] == "result" and e["op"] == "delete"]
    assert ["msg-2#1", "msg-3#1"] == invocations
    starts = [(s["event"]["Records"][0]["messageId"], s["time"] * 1000 - VIRTUAL_EPOCH_MS) for s in seen]
    assert [("msg-1", 0), ("msg-2", 10_000), ("msg-1", 30_000), ("msg-3", 60_000)] == [(m, round(t)) for m, t in starts]
    sent = [int(s["event"]["Records"][0]["attributes"]["SentTimestamp"]) - VIRTUAL_EPOCH_MS for s in seen]
    assert [0, 10_000, 0, 60_000] == sent


def test_messages_go_in_order_of_time_then_of_listing(run_probe):
    _, seen = run_probe([message({"id": "late"}, at_ms=5_000), message({"id": "first"}), message({"id": "second"}, at_ms=0)])
    assert ["msg-2", "msg-3", "msg-1"] == [s["event"]["Records"][0]["messageId"] for s in seen]


@pytest.mark.parametrize("bad", [-1, 2.5, "10s", True])
def test_an_at_ms_that_is_no_virtual_time_is_refused(bad):
    with pytest.raises(UserError, match=r"at_ms must be a whole number of virtual milliseconds"):
        message({"id": "a"}, at_ms=bad)


def test_a_fifo_duplicate_sent_five_minutes_later_is_accepted():
    """Deduplication remembers an id for five minutes of virtual time, counted from when each message is sent."""
    fifo = {"group_id": "g", "deduplication_id": "d-1"}
    drive = sqs("jobs.fifo", [message(1, **fifo), message(2, **fifo, at_ms=299_999), message(3, **fifo, at_ms=300_000)])
    assert ["msg-1", "msg-3"] == [event["id"] for event in drive["events"]]
    assert [{"id": "msg-2", "duplicateOf": "msg-1", "deduplicationId": "d-1"}] == drive["deduplicated"]
    assert 300_000 == drive["events"][1]["atMs"] and "atMs" not in drive["events"][0]
