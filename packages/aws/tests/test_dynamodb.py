"""DynamoDB plumbing: classification, table names and plain JSON of typed values."""

import botocore.session

from eutaxy.aws.dynamodb import attribute_value, classify, plain, plain_attribute_value, split_batch, tables_of, target_of
from eutaxy.aws.local import HUNG_FLOOR_MS, hung_after_s
from eutaxy.engine.bounds import EFFECT_HANG_MS_DEFAULT

MODEL = botocore.session.get_session().get_service_model("dynamodb")


def test_operations_are_writes_reads_or_not_modelled():
    assert ["write", "read", "read", "other", "other"] == [
        classify(op) for op in ("TransactWriteItems", "Query", "DescribeTable", "CreateTable", "ExecuteStatement")
    ]


def test_a_batch_or_transaction_names_every_table_sorted():
    params = {"RequestItems": {"b": [], "a": []}}
    assert ["a", "b"] == tables_of("BatchWriteItem", params)
    transact = {"TransactItems": [{"Update": {"TableName": "z"}}, {"ConditionCheck": {"TableName": "m"}}, {"Put": {"TableName": "z"}}]}
    assert "DynamoDB:m+z" == target_of(tables_of("TransactWriteItems", transact))


def test_attribute_values_unwrap_to_plain_json():
    typed = {"M": {"s": {"S": "x"}, "n": {"N": "12"}, "f": {"N": "1.25"}, "b": {"B": b"\x01"}, "ss": {"SS": ["b", "a"]},
                   "ns": {"NS": ["3", "1"]}, "l": {"L": [{"NULL": True}, {"BOOL": False}]}}}
    assert {"s": "x", "n": 12, "f": 1.25, "b": {"$": "bytes", "v": "AQ=="}, "ss": {"$": "set", "v": ["a", "b"]},
            "ns": {"$": "set", "v": [1, 3]}, "l": [None, False]} == plain_attribute_value(typed)


def test_plain_unwraps_only_where_the_model_has_an_attribute_value():
    """A map key that happens to be "S" is left alone outside attribute values."""
    params = {"TableName": "t", "Item": {"id": {"S": "a"}}, "ExpressionAttributeNames": {"#S": "S"}}
    shape = MODEL.operation_model("PutItem").input_shape
    assert {"TableName": "t", "Item": {"id": "a"}, "ExpressionAttributeNames": {"#S": "S"}} == plain(params, shape)
    response = {"Items": [{"id": {"S": "a"}}], "Count": 1}
    assert {"Items": [{"id": "a"}], "Count": 1} == plain(response, MODEL.operation_model("Scan").output_shape)


def test_seed_values_become_typed_attribute_values():
    assert {"M": {"a": {"N": "1"}, "b": {"L": [{"S": "x"}, {"NULL": True}, {"BOOL": True}]}}} == attribute_value({"a": 1, "b": ["x", None, True]})


def test_numbers_keep_every_digit():
    """An integer stays an exact int; anything else is a Decimal written as its exact text."""
    import decimal

    from eutaxy.core.canonical import to_json
    from eutaxy.core.selectors import compare

    assert decimal.Decimal("10000.00") == plain_attribute_value({"N": "0010000.00"})
    assert '"10000.00"' == to_json(plain_attribute_value({"N": "0010000.00"}))
    long = "123456789012345678901234567890.123456"
    assert long == str(plain_attribute_value({"N": long}))
    assert 10**37 + 1 == plain_attribute_value({"N": str(10**37 + 1)})
    assert compare("gte", plain_attribute_value({"N": "0.50"}), 0)


def test_the_local_service_counts_an_answer_hung_after_the_effect_hang_bound():
    """The engine's effect hang bound, not the exploration budget, at least the floor."""
    assert 20.0 == hung_after_s({"bounds": {"budgetMs": 600_000, "effectHangMs": 20_000}})
    assert 20.0 == hung_after_s({"bounds": {"budgetMs": 1_000, "effectHangMs": 20_000}})
    assert HUNG_FLOOR_MS / 1000 == hung_after_s({"bounds": {"budgetMs": 600_000, "effectHangMs": 500}})
    assert EFFECT_HANG_MS_DEFAULT / 1000 == hung_after_s({"bounds": {"budgetMs": 600_000}})


def test_a_partial_batch_leaves_the_last_half_rounded_up_unprocessed():
    """Requests in request order, tables as listed; the first half (rounded down) is written."""
    a = [{"PutRequest": {"Item": {"id": {"S": f"a-{i}"}}}} for i in range(2)]
    b = [{"DeleteRequest": {"Key": {"id": {"S": "b-0"}}}}]
    assert ({"a": a[:1]}, {"a": a[1:], "b": b}) == split_batch({"a": a, "b": b})
    assert ({"a": a[:1]}, {"a": a[1:]}) == split_batch({"a": a})
    assert ({}, {"b": b}) == split_batch({"b": b})
