"""The botocore boundary on its own: a local service that fails ends the run UNSUPPORTED.

A stand-in for the local DynamoDB raises from ``forward``; the handler's client is a real
botocore client, which the boundary never lets reach the network.
"""

import boto3
import pytest
from botocore.exceptions import EndpointConnectionError, ReadTimeoutError

from eutaxy.aws.boundary import Boundary
from eutaxy.engine.runloop import RunLoop


class _FailingLocal:
    endpoint_url = "http://127.0.0.1:1"
    client = object()

    def __init__(self, error):
        self.error = error

    def forward(self, operation_model, request_dict):
        raise self.error

    def owns(self, client):
        return client is self.client


def _run_put(error):
    loop = RunLoop.from_plan(
        {
            "scenario": {"bounds": {"effectHangMs": 10_000}},
            "streams": {"globals": [1, 2, 3, 4], "turns": [1, 2, 3, 4]},
            "prefix": [],
            "policy": {"kind": "first"},
            "maxFaults": 0,
            "maxShortBatches": 0,
        }
    )
    client = boto3.session.Session().client(
        "dynamodb", region_name="us-east-1", aws_access_key_id="k", aws_secret_access_key="s"
    )
    boundary = Boundary(local=_FailingLocal(error))

    def body(running):
        with running.invocation("msg-1#1"):
            running.call(lambda: client.put_item(TableName="t", Item={"id": {"S": "a"}}))

    with boundary.installed(loop):
        loop.run(body)
    return loop


@pytest.mark.parametrize(
    ("error", "cause"),
    [
        (ReadTimeoutError(endpoint_url="http://127.0.0.1:1"), "effect_hung"),
        (EndpointConnectionError(endpoint_url="http://127.0.0.1:1"), "dynamodb_unavailable"),
    ],
)
def test_a_failing_local_service_is_never_shown_to_the_handler(error, cause):
    loop = _run_put(error)
    assert "unsupported" == loop.end["kind"]
    assert cause == loop.end["cause"]
    assert "PutItem" in loop.end["detail"]


def test_the_boundary_is_removed_after_the_run():
    from botocore.client import BaseClient

    original = BaseClient._make_request
    _run_put(EndpointConnectionError(endpoint_url="x"))
    assert original is BaseClient._make_request


def test_an_injected_fault_names_no_real_endpoint():
    from botocore.exceptions import ReadTimeoutError

    from eutaxy.aws.boundary import SIMULATED_ENDPOINT, _internal_server_error

    http, parsed = _internal_server_error("PutItem")
    assert http.url.endswith(".invalid/") and 500 == parsed["ResponseMetadata"]["HTTPStatusCode"]
    assert "amazonaws" not in str(ReadTimeoutError(endpoint_url=SIMULATED_ENDPOINT))
