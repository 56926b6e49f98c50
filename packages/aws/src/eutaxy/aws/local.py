"""The local DynamoDB the real work goes to, and the platform's own client for it.

The embedded default is moto's server (``moto.server.ThreadedMotoServer``) on 127.0.0.1 and
a port the OS picks, started by the platform and stopped by ``close()``. A scenario's
``dynamodb.endpointUrl``, or the ``EUTAXY_DYNAMODB_ENDPOINT`` environment variable, points
at another local DynamoDB instead (DynamoDB Local, LocalStack, dynalite); then nothing is
started here, and reset deletes every table that endpoint holds, so never point it at a
database you keep.

``forward`` sends a request the handler's own client serialized, byte for byte, through
this client's endpoint, which signs it with local credentials: the handler's clients,
built at module scope the way Lambda code does, never reach the network.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Mapping
from urllib.parse import urlsplit

import attrs
import boto3
from botocore.awsrequest import prepare_request_dict
from botocore.config import Config

from eutaxy.core.errors import SettingError, UserError
from eutaxy.engine.bounds import resolve_bounds

__all__ = ["ENDPOINT_ENV", "HUNG_FLOOR_MS", "LOCAL_REGION", "MOTO_ACCOUNT_ID", "LocalDynamoDB"]

#: Names another local DynamoDB; a scenario's ``dynamodb.endpointUrl`` wins over it.
ENDPOINT_ENV = "EUTAXY_DYNAMODB_ENDPOINT"
#: The region the local client (and the handler's environment) uses.
LOCAL_REGION = "us-east-1"
#: The least time a local DynamoDB call may take before it counts as hung: a loaded machine
#: can stall a small scenario's budget, and a hung verdict must not be a slow machine's.
HUNG_FLOOR_MS = 10_000
#: The account every simulated ARN names (moto keeps resources per account).
MOTO_ACCOUNT_ID = "000000000000"
#: Credentials for the local service; DynamoDB Local partitions its data by access key.
_LOCAL_KEY = "eutaxy"
_LOCAL_SECRET = "eutaxy-local"


def _endpoint_from(scenario: Mapping[str, Any]) -> str | None:
    configured = (scenario.get("dynamodb") or {}).get("endpointUrl")
    if configured:
        return _endpoint_url(configured, "define_scenario(dynamodb_endpoint=...)")
    from_environment = os.environ.get(ENDPOINT_ENV)
    return _endpoint_url(from_environment, ENDPOINT_ENV, SettingError) if from_environment else None


def _endpoint_url(text: object, where: str, refusal: type[UserError] = UserError) -> str:
    """``text`` if it is an http(s) URL with a host (and a port that is a number), else the user's
    ``refusal`` (a ``SettingError`` for the environment variable, which no scenario line wrote)."""
    problem = None
    if not isinstance(text, str):
        problem = f"it is {type(text).__name__}, not a URL"
    else:
        try:
            parts = urlsplit(text)
            parts.port  # noqa: B018 - raises on a port that is no number
        except ValueError as error:
            problem = str(error)
        else:
            if parts.scheme not in ("http", "https") or not parts.hostname:
                problem = "it needs http:// or https:// and a host"
    if problem is not None or not isinstance(text, str):
        raise refusal(
            f"{where} is {text!r}, which is no endpoint URL ({problem}); expected one such as "
            "http://localhost:8000 (DynamoDB Local), or unset it to use the embedded moto server"
        )
    return text


@attrs.define(eq=False)
class LocalDynamoDB:
    """A running local DynamoDB and a low-level client for it."""

    endpoint_url: str
    client: Any
    #: What the verdict's assumptions name (``moto 5.2.1 server`` or the endpoint).
    description: str
    _server: Any = None
    _read_timeout_s: float = 10.0
    _clients: dict[str, Any] = attrs.Factory(dict)

    @property
    def embedded(self) -> bool:
        """Whether this is the embedded moto server, which serves every AWS service."""
        return self._server is not None

    def client_for(self, service: str) -> Any:
        """The platform's own client of ``service`` (S3, SNS, EventBridge) on the embedded moto."""
        if service == "dynamodb":
            return self.client
        if service not in self._clients:
            self._clients[service] = _local_client(
                self.endpoint_url, connect_timeout=5, read_timeout=self._read_timeout_s, service=service
            )
        return self._clients[service]

    def owns(self, client: Any) -> bool:
        return client is self.client or any(client is own for own in self._clients.values())

    @classmethod
    def start(cls, scenario: Mapping[str, Any]) -> "LocalDynamoDB":
        endpoint = _endpoint_from(scenario)
        server = None
        if endpoint is None:
            server, endpoint, description = _start_moto()
        else:
            description = f"the local DynamoDB at {endpoint}"
        # No retries: a retried write could commit twice behind the handler's back, so a
        # failure of the local service ends the run instead.
        read_timeout_s = hung_after_s(scenario)
        client = _local_client(endpoint, connect_timeout=5, read_timeout=read_timeout_s)
        # One quick try, without the retries' backoff, tells a missing service at once.
        probe = _local_client(endpoint, connect_timeout=2, read_timeout=10)
        try:
            probe.list_tables(Limit=1)
        except Exception as error:
            if server is not None:
                server.stop()
            raise UserError(
                f"the local DynamoDB at {endpoint} does not answer ({type(error).__name__}: {error}); "
                f"start it, or unset {ENDPOINT_ENV} to use the embedded moto server"
            ) from error
        return cls(endpoint_url=endpoint, client=client, description=description, server=server, read_timeout_s=read_timeout_s)

    def forward(self, operation_model: Any, request_dict: Mapping[str, Any]) -> tuple[Any, Any]:
        """Send the handler's serialized request here; returns ``(http response, parsed)``."""
        forwarded = dict(request_dict)
        forwarded["headers"] = dict(request_dict.get("headers") or {})
        prepare_request_dict(
            forwarded,
            endpoint_url=self.endpoint_url,
            context={
                "client_region": LOCAL_REGION,
                "client_config": self.client.meta.config,
                "auth_type": operation_model.resolved_auth_type,
                "has_streaming_input": False,
            },
        )
        local_model = self.client.meta.service_model.operation_model(operation_model.name)
        return self.client._endpoint.make_request(local_model, forwarded)

    def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.stop()


def _start_moto() -> tuple[Any, str, str]:
    try:
        import moto
        from moto.server import ThreadedMotoServer
    except ImportError as error:  # pragma: no cover (moto[server] is a dependency)
        raise UserError(
            f"the embedded local DynamoDB needs moto's server ({error}); install moto[server], "
            f"or set {ENDPOINT_ENV} to a DynamoDB Local endpoint"
        ) from error
    # The server logs every request at INFO on werkzeug's logger; a check is quiet.
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    return server, f"http://{host}:{port}", f"moto {moto.__version__} (its server, beside the handler)"


def hung_after_s(scenario: Mapping[str, Any]) -> float:
    """Seconds an answer of the local service may take before the effect counts as hung.

    The engine's effect hang bound (``Bounds.effect_hang_ms``, one resolution for every
    platform; ``budgetMs`` is the exploration budget), at least HUNG_FLOOR_MS.
    """
    return max(HUNG_FLOOR_MS, resolve_bounds(scenario).effect_hang_ms) / 1000


def _local_client(endpoint: str, *, connect_timeout: float, read_timeout: float, service: str = "dynamodb") -> Any:
    """A client of the local service: its endpoint, the local credentials, no retries."""
    client = boto3.session.Session().client(
        service,
        endpoint_url=endpoint,
        region_name=LOCAL_REGION,
        aws_access_key_id=_LOCAL_KEY,
        aws_secret_access_key=_LOCAL_SECRET,
        config=Config(
            retries={"max_attempts": 1, "mode": "standard"},
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            s3={"addressing_style": "path"},
        ),
    )
    # moto keeps its resources per account; the simulated ARNs name this one.
    client.meta.events.register("before-sign", _moto_account)
    return client


def _moto_account(request: Any, **_: Any) -> None:
    request.headers["x-moto-account-id"] = MOTO_ACCOUNT_ID
