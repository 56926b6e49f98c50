"""The effect boundary: botocore's one request path, replaced while a run is in progress.

Every botocore client call, from a low-level client or a boto3 resource (``Table.put_item``
is the low-level ``PutItem`` by then), from a client made at module scope before the run or
inside the handler, goes through ``BaseClient._make_request`` once its parameters are
validated and serialized. That is the point replaced here: the method is patched on the
class, so clients that exist already are covered, and what it sees is the low-level
operation name and the request exactly as it would go on the wire.

Each call is one effect point ``DynamoDB:<table>`` (tables joined with ``+`` for a batch or
a transaction) with the operation name as op: writes take the write ladder, reads the read
ladder. ``crash_before`` and ``error`` fault before anything is sent; ``crash_after`` and
``ambiguous`` send it to the local DynamoDB, record the result, then fault. The caller sees
``error`` as a 500 ``InternalServerError`` (a ``ClientError`` from its own client) and
``ambiguous`` as a read timeout. ``BatchWriteItem`` also takes ``partial`` (its ladder is
``BATCH_WRITE_FAULTS``): only the first half of its write requests, rounded down, goes to the
local DynamoDB and is written for real; the rest comes back in ``UnprocessedItems``, which
the recorded result shows, and the call succeeds, as DynamoDB answers a throttled batch.
``TransactWriteItems`` is all or nothing, so it keeps the write ladder. A client of another service, or a DynamoDB operation the
model does not cover, ends the run UNSUPPORTED naming it.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
from typing import Any, Iterator

import attrs
from botocore.awsrequest import AWSResponse
from botocore.client import BaseClient
from botocore.exceptions import ReadTimeoutError

from eutaxy.core.errors import UserError
from eutaxy.core.faults import AMBIGUOUS, BATCH_WRITE_FAULTS, ERROR, READ_FAULTS, WRITE_FAULTS
from eutaxy.engine.runloop import RunLoop

from eutaxy.aws.dynamodb import OTHER, WRITE, classify, plain, split_batch, tables_of, target_of
from eutaxy.aws.local import LocalDynamoDB
from eutaxy.aws.services import Services, simulated_endpoint

__all__ = ["Boundary"]

_ORIGINAL_MAKE_REQUEST = BaseClient._make_request
_ORIGINAL_MAKE_API_CALL = BaseClient._make_api_call
#: The endpoint an injected fault names (never a real one).
SIMULATED_ENDPOINT = simulated_endpoint("dynamodb")

#: The boundary in force (one run at a time in a process), or None: botocore as shipped.
_active: "Boundary | None" = None


def _patched_make_request(client: Any, operation_model: Any, request_dict: Any, request_context: Any) -> Any:
    boundary = _active
    if boundary is None or boundary.local.owns(client):
        return _ORIGINAL_MAKE_REQUEST(client, operation_model, request_dict, request_context)
    return boundary.call(client, operation_model, request_dict)


def _patched_make_api_call(client: Any, operation_name: str, api_params: Any) -> Any:
    """Calls of services other than DynamoDB, caught with the handler's own parameters."""
    boundary = _active
    if boundary is None or boundary.local.owns(client) or client.meta.service_model.service_name == "dynamodb":
        return _ORIGINAL_MAKE_API_CALL(client, operation_name, api_params)
    return boundary.call_service(client, operation_name, api_params)


@attrs.define(eq=False)
class Boundary:
    """Routes the handler's botocore calls through the run loop to the local DynamoDB."""

    local: LocalDynamoDB
    #: The run in progress, or None while the handler module is being imported.
    loop: RunLoop | None = None
    #: The run's other services (its queues, moto's S3, SNS and EventBridge).
    services: Services | None = None

    @contextlib.contextmanager
    def installed(self, loop: RunLoop | None, services: Services | None = None) -> Iterator["Boundary"]:
        """Patch botocore for the block; ``loop`` None refuses every call (import time)."""
        global _active
        assert _active is None, "a botocore boundary is already installed"
        self.loop, self.services = loop, services
        _active = self
        BaseClient._make_request = _patched_make_request
        BaseClient._make_api_call = _patched_make_api_call
        try:
            yield self
        finally:
            BaseClient._make_request = _ORIGINAL_MAKE_REQUEST
            BaseClient._make_api_call = _ORIGINAL_MAKE_API_CALL
            _active = None
            self.loop, self.services = None, None

    def call_service(self, client: Any, op: str, params: Any) -> Any:
        loop = self.loop
        if loop is None:
            raise _at_import(client.meta.service_model.service_id, op)
        assert self.services is not None, "a run's boundary has its services"
        return self.services.call(loop, client, op, dict(params))

    def call(self, client: Any, operation_model: Any, request_dict: Any) -> Any:
        service = client.meta.service_model.service_name
        op = operation_model.name
        loop = self.loop
        if loop is None:
            raise _at_import(service, op)
        assert service == "dynamodb", service  # other services stop at _make_api_call
        access = classify(op)
        if access == OTHER:
            raise loop.unsupported(
                "operation_not_supported",
                f"the handler called DynamoDB {op}; modelled are item reads and writes, batches, "
                f"transactions and DescribeTable (not PartiQL or table management)",
            )
        params = json.loads(request_dict.get("body") or b"{}")
        args = plain(params, operation_model.input_shape)
        target = target_of(tables_of(op, params))
        ladder: tuple[str, ...] = WRITE_FAULTS if access == WRITE else READ_FAULTS

        def forward(request: Any) -> tuple[Any, Any]:
            try:
                return self.local.forward(operation_model, request)
            except ReadTimeoutError as error:
                raise loop.unsupported(
                    "effect_hung", f"DynamoDB {op} on {target} got no answer from {self.local.endpoint_url}: {error}"
                ) from error
            except Exception as error:  # the local service, not the handler, failed
                raise loop.unsupported(
                    "dynamodb_unavailable",
                    f"DynamoDB {op} on {target} failed at {self.local.endpoint_url}: {type(error).__name__}: {error}",
                ) from error

        def perform() -> tuple[Any, Any]:
            http, parsed = forward(request_dict)
            return _result_of(http, parsed, operation_model), (http, parsed)

        def partial() -> tuple[Any, Any, Any]:
            written, unprocessed = split_batch(params.get("RequestItems") or {})
            if written:
                body = json.dumps(dict(params, RequestItems=written)).encode("utf-8")
                http, parsed = forward(dict(request_dict, body=body))
            else:
                metadata = {"HTTPStatusCode": 200, "HTTPHeaders": {}, "RetryAttempts": 0}
                http, parsed = AWSResponse(SIMULATED_ENDPOINT, 200, {}, None), {"ResponseMetadata": metadata}
            if http.status_code < 300:
                left = dict(parsed.get("UnprocessedItems") or {})
                for table, requests in unprocessed.items():
                    left[table] = [*left.get(table, []), *requests]
                parsed = dict(parsed, UnprocessedItems=left)
            unprocessed_plain = plain(unprocessed, operation_model.output_shape.members["UnprocessedItems"])
            return _result_of(http, parsed, operation_model), (http, parsed), {"UnprocessedItems": unprocessed_plain}

        batch = op == "BatchWriteItem"
        if batch:
            ladder = BATCH_WRITE_FAULTS
        fault, answer = loop.effect_point(target, op, args, ladder, perform, partial if batch else None)
        if fault == ERROR:
            return _internal_server_error(op)
        if fault == AMBIGUOUS:
            raise ReadTimeoutError(endpoint_url=SIMULATED_ENDPOINT)
        return answer


def _at_import(service: str, op: str) -> UserError:
    return UserError(
        f"the handler module called {service} {op} while it was imported; Eutaxy models "
        f"calls made by the handler during an invocation, so move the call into the handler"
    )


def _result_of(http: Any, parsed: Any, operation_model: Any) -> dict[str, Any]:
    """The result payload: ``{ok: true, <response>}`` or ``{ok: false, error: {code, message}}``."""
    if http.status_code >= 300:
        error = parsed.get("Error") or {}
        return {"ok": False, "error": {"code": error.get("Code"), "message": error.get("Message")}}
    body = _stable({key: value for key, value in parsed.items() if key != "ResponseMetadata"})
    result = plain(body, operation_model.output_shape)
    return {"ok": True, **result}


#: Response fields the local service fills from its own clock or randomness (a table's
#: id); recorded, they would make two runs of one plan differ. The handler still sees them.
_UNSTABLE_FIELDS = frozenset({"TableId"})


def _stable(value: Any) -> Any:
    """``value`` without timestamps and the local service's own ids."""
    if isinstance(value, dict):
        return {
            key: _stable(item)
            for key, item in value.items()
            if key not in _UNSTABLE_FIELDS and not isinstance(item, _dt.datetime)
        }
    if isinstance(value, list):
        return [_stable(item) for item in value if not isinstance(item, _dt.datetime)]
    return value


def _internal_server_error(op: str) -> tuple[Any, dict[str, Any]]:
    """What the caller's client sees for an injected error: a clean 500 from DynamoDB."""
    http = AWSResponse(SIMULATED_ENDPOINT, 500, {}, None)
    parsed = {
        "Error": {"Code": "InternalServerError", "Message": f"Eutaxy injected an error into {op}"},
        "ResponseMetadata": {"HTTPStatusCode": 500, "HTTPHeaders": {}, "RetryAttempts": 0},
    }
    return http, parsed
