"""Scenario helpers: the plain data they build and the mistakes they refuse."""

import os

import pytest

from eutaxy.aws import (
    at_least_once_per_message,
    define_scenario,
    dynamodb_rows,
    dynamodb_table,
    dynamodb_write,
    handler,
    load_scenario,
    sqs,
    unique,
)
from eutaxy.core.errors import UserError


def test_define_scenario_sets_the_platform_root_and_source_from_the_calling_file():
    drive = sqs("payments", [{"orderId": "o-1"}, {"orderId": "o-2"}])
    scenario = define_scenario(
        name="s",
        handler=handler("./handler.py", "handle"),
        drive=drive,
        setup=[dynamodb_table("ledger", {"order_id": "HASH"})],
        invariants=[
            at_least_once_per_message("all", drive, dynamodb_write("ledger"), "args.Item.order_id", "orderId"),
            unique("one", dynamodb_rows("ledger"), "order_id"),
        ],
        bounds={"maxRedeliveries": 3},
    )
    assert "aws" == scenario["platform"]
    assert os.path.abspath(__file__) == scenario["source"]
    # Under Bazel this file is a runfiles symlink with no handler.py beside it: root is then its real folder.
    assert os.path.dirname(os.path.realpath(__file__)) == os.path.realpath(scenario["root"])
    assert {"path": "./handler.py", "function": "handle", "timeoutMs": 3000, "environment": {}, "pythonPath": []} == scenario[
        "handler"
    ]
    # Only what the scenario says: the engine resolves the defaults (eutaxy.engine.bounds).
    assert {"maxRedeliveries": 3} == scenario["bounds"]


def test_the_sqs_drive_numbers_its_messages_in_order():
    drive = sqs("q", ["a", {"b": 1}], max_receive_count=3)
    assert {
        "kind": "sqs",
        "name": "q",
        "events": [{"id": "msg-1", "body": "a"}, {"id": "msg-2", "body": {"b": 1}}],
        "maxReceiveCount": 3,
        "batchSize": 10,  # Lambda's default for an SQS event source
        "visibilityTimeoutSeconds": 30,
        "delaySeconds": 0,
        "maximumBatchingWindowSeconds": 0,
        "reportBatchItemFailures": True,
        "fifo": False,
        "contentBasedDeduplication": False,
    } == drive


def test_an_invariant_naming_a_table_the_setup_lacks_is_refused():
    with pytest.raises(UserError, match="DynamoDB 'ledgr', which the scenario does not"):
        define_scenario(
            name="s",
            handler=handler("./handler.py"),
            drive=sqs("q", ["a"]),
            setup=[dynamodb_table("ledger", "id")],
            invariants=[unique("one", dynamodb_rows("ledgr"), "id")],
        )


def test_dynamodb_table_takes_a_name_a_mapping_or_pairs_and_orders_hash_first():
    assert [{"name": "pk", "type": "HASH"}] == dynamodb_table("t", "pk")["keySchema"]
    table = dynamodb_table("t", [("sk", "RANGE"), ("pk", "HASH")], {"sk": "N"}, items=[{"pk": "a", "sk": 1}])
    assert [{"name": "pk", "type": "HASH"}, {"name": "sk", "type": "RANGE"}] == table["keySchema"]
    assert [{"name": "pk", "type": "S"}, {"name": "sk", "type": "N"}] == table["attributes"]
    assert [{"pk": "a", "sk": 1}] == table["items"]


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: dynamodb_table("t", {"a": "RANGE"}), "exactly one HASH"),
        (lambda: dynamodb_table("t", {"a": "HASH"}, {"a": "X"}), "use S, N or B"),
        (lambda: dynamodb_table("t", {"a": "HASH"}, {"b": "S"}), "not keys"),
        (lambda: dynamodb_table("t", {"a": "HASH"}, items=[{"b": 1}]), "lacks key"),
        (lambda: handler("handler.js"), ".py file"),
        (lambda: sqs("q", [], max_receive_count=0), "at least 1"),
        (lambda: define_scenario(name="s", handler=handler("./h.py"), drive={"kind": "queue"}), "sqs"),
    ],
)
def test_mistakes_are_user_errors_that_say_what_to_do(build, message):
    with pytest.raises(UserError, match=message):
        build()


def test_a_symlinked_scenario_reads_its_handler_beside_the_file_it_links_to(tmp_path):
    """Opened through a symlink, the scenario's handler path resolves as the real file's does."""
    real, linked = tmp_path / "real", tmp_path / "linked"
    real.mkdir()
    linked.mkdir()
    (real / "handler.py").write_text("def handler(event, context):\n    return {}\n")
    (real / "s.sim.py").write_text(
        "from eutaxy.aws import define_scenario, handler, sqs\n"
        'scenario = define_scenario(name="s", handler=handler("./handler.py", "handler"), drive=sqs("q", [{"n": 1}]))\n'
    )
    (linked / "s.sim.py").symlink_to(real / "s.sim.py")
    assert str(real) == load_scenario(linked / "s.sim.py")["root"]
    (linked / "handler.py").symlink_to(real / "handler.py")
    assert str(linked) == load_scenario(linked / "s.sim.py")["root"]


def _scenario(**overrides):
    drive = sqs("payments", [{"orderId": "o-1"}])
    fields = {
        "name": "s",
        "handler": handler("./handler.py", "handle"),
        "drive": drive,
        "setup": [dynamodb_table("ledger", {"order_id": "HASH"})],
        "invariants": [at_least_once_per_message("all", drive, dynamodb_write("ledger"), "args.Item.order_id", "orderId")],
    }
    return define_scenario(**{**fields, **overrides})


@pytest.mark.parametrize(
    ("bounds", "words"),
    [
        ({"max_faults_per_run": 3, "maxFualtsPerRun": 4}, ["unknown bound 'maxFualtsPerRun' in bounds", "did you mean 'maxFaultsPerRun'"]),
        ({"max_redeliverys": 1}, ["unknown bound 'max_redeliverys'", "did you mean 'maxRedeliveries'"]),
        ({"maxRuns": 1, "max_runs": 2}, ["bound maxRuns is given twice", "'maxRuns' and 'max_runs'"]),
        ({"alarmsPerObject": 3}, ["unknown bound 'alarmsPerObject'"]),
    ],
)
def test_a_misspelt_bound_is_refused_with_the_nearest_name(bounds, words):
    """Issue 13: eutaxy.aws used to accept a misspelt bound beside a good one and check with the defaults."""
    with pytest.raises(UserError) as raised:
        _scenario(bounds=bounds)
    for word in words:
        assert word in str(raised.value)


def test_two_invariants_with_one_name_are_refused():
    """The report and the regression test tell violations apart by name, so names are unique."""
    once = unique("one", dynamodb_rows("ledger"), "order_id")
    with pytest.raises(UserError) as raised:
        _scenario(invariants=[once, unique("two", dynamodb_rows("ledger"), "order_id"), once])
    assert "invariants[2].name: two invariants are named 'one' (invariants[0] and invariants[2])" in str(raised.value)
    assert "'one-2'" in str(raised.value)


def test_a_per_message_invariant_names_the_drive_and_a_body_key_it_has():
    """at_least_once_per_message over another drive, or a body key no message has, is refused with the nearest name."""
    drive = sqs("payments", [{"orderId": "o-1"}])
    other = at_least_once_per_message("all", "paymnts", dynamodb_write("ledger"), "args.Item.order_id", "orderId")
    with pytest.raises(UserError, match=r"invariants\[0\]\.drive: .*'paymnts'.*did you mean 'payments'"):
        _scenario(drive=drive, invariants=[other])
    missing = at_least_once_per_message("all", drive, dynamodb_write("ledger"), "args.Item.order_id", "orderID")
    with pytest.raises(UserError, match=r"invariants\[0\]\.bodyKey: event 'msg-1' has no body value at 'orderID'.*did you mean 'orderId'"):
        _scenario(drive=drive, invariants=[missing])
