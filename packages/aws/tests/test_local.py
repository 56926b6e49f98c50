"""The local DynamoDB: moto in the handler's process by default, its server on request.

In process, the platform's clients reach moto's handlers at botocore's ``before-send`` event
with no HTTP; reset puts a copy of the seeded items back into moto's tables and the snapshot
reads them there. These tests hold those shortcuts to what the requests would have done:
the same items as a consistent Scan, the seeded state back whatever a run wrote, and the
full reset again when another platform re-created a table. corpus/differential/aws-moto-modes
holds the two modes to the same verdicts on every AWS planted bug.
"""

import pytest

from eutaxy.aws.dynamodb import plain_attribute_value
from eutaxy.aws.local import ENDPOINT_ENV, IN_PROCESS_ENDPOINT, MOTO_SERVER, LocalDynamoDB
from eutaxy.aws.tables import Tables
from eutaxy.core.canonical import to_json
from eutaxy.core.errors import SettingError

TABLE = {"name": "things", "keySchema": [{"name": "k", "type": "HASH"}], "attributes": [{"name": "k", "type": "S"}]}
#: Every attribute type, binary inside maps and lists, numbers that keep their digits.
ITEMS = [
    {"k": {"S": "a"}, "n": {"N": "0010.50"}, "b": {"B": b"\x00\xff"}, "t": {"BOOL": True}, "z": {"NULL": True}},
    {"k": {"S": "b"}, "ss": {"SS": ["y", "x"]}, "ns": {"NS": ["3", "1.0"]}, "bs": {"BS": [b"\x01", b"\x00"]}},
    {"k": {"S": "c"}, "m": {"M": {"x": {"B": b"\x02"}, "l": {"L": [{"B": b"\x03"}, {"N": "5"}, {"M": {"q": {"BS": [b"a"]}}}]}, "$": {"S": "d"}}}},
    {"k": {"S": "d"}, "big": {"N": "123456789012345678901234567890123456"}, "e": {"S": ""}, "l": {"L": []}, "mm": {"M": {}}},
]


@pytest.fixture(name="local")
def local_fixture(monkeypatch):
    monkeypatch.delenv(ENDPOINT_ENV, raising=False)
    local = LocalDynamoDB.start({})
    yield local
    local.close()


def _plain_rows(items):
    return sorted(to_json({key: plain_attribute_value(value) for key, value in item.items()}) for item in items)


def test_moto_answers_in_process_by_default_and_its_server_on_request(local, monkeypatch):
    assert local.in_process is not None and local.embedded
    assert IN_PROCESS_ENDPOINT == local.endpoint_url
    monkeypatch.setenv(ENDPOINT_ENV, MOTO_SERVER)
    server = LocalDynamoDB.start({})
    try:
        assert server.in_process is None and server.embedded
        assert server.endpoint_url.startswith("http://127.0.0.1:")
        assert server.description == local.description  # the same moto: a verdict's bytes do not say which
    finally:
        server.close()
    from_scenario = LocalDynamoDB.start({"dynamodb": {"endpointUrl": MOTO_SERVER}})
    from_scenario.close()
    assert from_scenario.endpoint_url.startswith("http://127.0.0.1:")
    monkeypatch.setenv(ENDPOINT_ENV, "moto-servr")
    with pytest.raises(SettingError, match="moto-server"):
        LocalDynamoDB.start({})


def test_the_snapshot_reads_what_a_consistent_scan_answers(local):
    tables = Tables(client=local.client, store=local.in_process)
    tables.reset([TABLE])
    for item in ITEMS:
        local.client.put_item(TableName="things", Item=item)
    local.client.update_item(
        TableName="things", Key={"k": {"S": "a"}}, UpdateExpression="ADD c :one SET s2 = :b",
        ExpressionAttributeValues={":one": {"N": "1"}, ":b": {"B": b"zz"}},
    )
    scanned = local.client.scan(TableName="things", ConsistentRead=True)["Items"]
    (rows,) = tables.snapshot([TABLE]).values()
    assert 4 == len(rows)
    assert _plain_rows(scanned) == sorted(to_json(row) for row in rows)


def test_reset_puts_the_seeded_items_back_whatever_the_run_wrote(local):
    seeded = dict(TABLE, items=[{"k": "s", "n": 1}])
    tables = Tables(client=local.client, store=local.in_process)
    tables.reset([seeded])
    before = local.client.scan(TableName="things", ConsistentRead=True)["Items"]
    for _ in range(2):
        local.client.put_item(TableName="things", Item={"k": {"S": "new"}})
        local.client.update_item(TableName="things", Key={"k": {"S": "s"}}, UpdateExpression="SET n = n + :one",
                                 ExpressionAttributeValues={":one": {"N": "1"}})
        tables.forget()  # as after a run that ended UNSUPPORTED: no keys known, the copy still serves
        tables.reset([seeded])
        assert before == local.client.scan(TableName="things", ConsistentRead=True)["Items"]


def test_a_table_another_platform_re_created_gets_the_full_reset(local):
    seeded = dict(TABLE, items=[{"k": "s"}])
    first = Tables(client=local.client, store=local.in_process)
    first.reset([seeded])
    other = Tables(client=local.client, store=local.in_process)
    other.reset([dict(TABLE, items=[{"k": "other"}])])  # deletes every table and creates its own
    first.reset([seeded])
    assert [{"k": {"S": "s"}}] == local.client.scan(TableName="things", ConsistentRead=True)["Items"]
