"""The local DynamoDB the real work goes to, and the platform's own client for it.

The embedded default is moto's backends in this process (``InProcessMoto``): the platform's
clients hand each request to moto's own handler for it at botocore's ``before-send`` event,
with no HTTP. A scenario's ``dynamodb.endpointUrl``, or the ``EUTAXY_DYNAMODB_ENDPOINT``
environment variable, set to ``moto-server`` starts moto's HTTP server instead
(``moto.server.ThreadedMotoServer``) on 127.0.0.1 and a port the OS picks, stopped by
``close()``: the same backends behind a real endpoint. Set to a URL, it points at another
local DynamoDB (DynamoDB Local, LocalStack, dynalite); then nothing is started here, and
reset deletes every table that endpoint holds, so never point it at a database you keep.

``forward`` sends a request the handler's own client serialized, byte for byte, through
this client's endpoint, which signs it with local credentials (in process there is nothing
to sign for): the handler's clients, built at module scope the way Lambda code does, never
reach the network.
"""

from __future__ import annotations

import copy
import functools
import logging
import os
import re
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit, urlunsplit

import attrs
import boto3
from botocore.awsrequest import AWSResponse, prepare_request_dict
from botocore import UNSIGNED
from botocore.config import Config

from eutaxy.core.errors import SettingError, UserError
from eutaxy.engine.bounds import resolve_bounds

__all__ = ["ENDPOINT_ENV", "HUNG_FLOOR_MS", "LOCAL_REGION", "MOTO_ACCOUNT_ID", "LocalDynamoDB"]

#: Names another local DynamoDB; a scenario's ``dynamodb.endpointUrl`` wins over it.
ENDPOINT_ENV = "EUTAXY_DYNAMODB_ENDPOINT"
#: The value of ``dynamodb_endpoint`` (or ``EUTAXY_DYNAMODB_ENDPOINT``) that serves moto from
#: its own HTTP server beside the handler instead of in the handler's process.
MOTO_SERVER = "moto-server"
#: Where the platform's clients send their requests when moto answers in process: a name
#: that resolves nowhere, so a request moto did not take cannot leave the machine.
IN_PROCESS_ENDPOINT = "http://moto.in-process.invalid"
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
        return MOTO_SERVER if configured == MOTO_SERVER else _endpoint_url(configured, "define_scenario(dynamodb_endpoint=...)")
    from_environment = os.environ.get(ENDPOINT_ENV)
    if from_environment == MOTO_SERVER:
        return MOTO_SERVER
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
            f"http://localhost:8000 (DynamoDB Local) or {MOTO_SERVER}, or unset it to use the embedded moto"
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
    def in_process(self) -> "InProcessMoto | None":
        """moto answering in this process, or None (its server, or another local DynamoDB)."""
        return self._server if isinstance(self._server, InProcessMoto) else None

    @property
    def embedded(self) -> bool:
        """Whether this is the embedded moto (in process or its server), which serves every AWS service."""
        return self._server is not None

    def client_for(self, service: str) -> Any:
        """The platform's own client of ``service`` (S3, SNS, EventBridge) on the embedded moto."""
        if service == "dynamodb":
            return self.client
        if service not in self._clients:
            self._clients[service] = _local_client(
                self.endpoint_url, connect_timeout=5, read_timeout=self._read_timeout_s, service=service, server=self._server
            )
        return self._clients[service]

    def owns(self, client: Any) -> bool:
        return client is self.client or any(client is own for own in self._clients.values())

    @classmethod
    def start(cls, scenario: Mapping[str, Any]) -> "LocalDynamoDB":
        endpoint = _endpoint_from(scenario)
        server: Any = None
        if endpoint is None:
            server, endpoint, description = _in_process_moto()
        elif endpoint == MOTO_SERVER:
            server, endpoint, description = _start_moto()
        else:
            description = f"the local DynamoDB at {endpoint}"
        # No retries: a retried write could commit twice behind the handler's back, so a
        # failure of the local service ends the run instead.
        read_timeout_s = hung_after_s(scenario)
        client = _local_client(endpoint, connect_timeout=5, read_timeout=read_timeout_s, server=server)
        # One quick try, without the retries' backoff, tells a missing service at once.
        probe = _local_client(endpoint, connect_timeout=2, read_timeout=10, server=server)
        try:
            probe.list_tables(Limit=1)
        except Exception as error:
            if server is not None:
                server.stop()
            raise UserError(
                f"the local DynamoDB at {endpoint} does not answer ({type(error).__name__}: {error}); "
                f"start it, or unset {ENDPOINT_ENV} to use the embedded moto"
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
    return server, f"http://{host}:{port}", _moto_description(moto.__version__)


def _moto_description(version: str) -> str:
    """What the verdict names: moto's version. Served in process or by its server, it is the
    same backends answering the same requests, so a verdict's bytes do not depend on which."""
    return f"moto {version}"


def _cache_method_names() -> None:
    """moto's ``call_action`` lists a response class's methods (``inspect.getmembers``) on every
    request to look the action up; the list depends on the class alone, so it is kept."""
    import moto.core.responses as responses

    listed = getattr(responses, "method_names_from_class")  # noqa: B009 - moto does not export it
    if not isinstance(listed, functools._lru_cache_wrapper):
        setattr(responses, "method_names_from_class", functools.lru_cache(maxsize=None)(listed))  # noqa: B010 - as above


def _in_process_moto() -> tuple["InProcessMoto", str, str]:
    import moto

    return InProcessMoto(), IN_PROCESS_ENDPOINT, _moto_description(moto.__version__)


class InProcessMoto:
    """moto's backends answering the platform's own clients in this process, with no HTTP.

    Each request the platform's clients make is serialized by botocore as for the server; at
    botocore's ``before-send`` event, instead of going over a socket, it is handed to the
    handler moto routes that URL to (``DynamoHandler.dispatch``, ``S3Response...``: what
    both moto's server and its in-process mock call), found as moto's in-process mock finds
    it (``BotocoreStubber.process_request``: the first service whose URL pattern matches,
    then the first of its URL paths), once per host and path rather than once per request.
    The answer comes back as the HTTP response botocore would have read (status, headers,
    body) and is parsed as before. The clients' endpoint is ``IN_PROCESS_ENDPOINT`` (a
    reserved ``.invalid`` name, so no request can reach a network); moto routes by the
    service's AWS URL, which the request is given here.
    """

    def __init__(self) -> None:
        self._services: dict[str, str] = {}
        self._routes: dict[str, Callable[[Any, str, Any], Any]] = {}
        _cache_method_names()

    def attach(self, client: Any) -> None:
        """Answer ``client``'s requests here (its endpoint is ``IN_PROCESS_ENDPOINT``)."""
        host = f"{client.meta.service_model.endpoint_prefix}.{LOCAL_REGION}.amazonaws.com"

        def serve(request: Any, **_: Any) -> AWSResponse:
            return self._answer(request, host)

        client.meta.events.register("before-send", serve)

    def _answer(self, request: Any, host: str) -> AWSResponse:
        from moto.core.botocore_stubber import MockRawResponse
        from werkzeug.exceptions import HTTPException

        parts = urlsplit(request.url)
        request.url = urlunsplit(("https", host, parts.path, parts.query, parts.fragment))
        request.headers["x-moto-account-id"] = MOTO_ACCOUNT_ID
        for header, value in request.headers.items():
            if isinstance(value, bytes):
                request.headers[header] = value.decode("utf-8")
        try:
            try:
                status, headers, body = self._route(f"https://{host}{parts.path}")(request, request.url, request.headers)
            except HTTPException as error:
                status, headers, body = error.code, error.get_headers(), error.get_body()
        except Exception as error:  # what the server's Flask app answers: a 500
            from werkzeug.exceptions import InternalServerError

            logging.getLogger(__name__).debug("moto failed a request", exc_info=error)
            failure = InternalServerError()
            status, headers, body = failure.code, dict(failure.get_headers()), failure.get_body()
        return AWSResponse(request.url, status, headers, MockRawResponse(body))

    def _route(self, url: str) -> Callable[[Any, str, Any], Any]:
        """moto's handler of ``url`` (scheme, host and path)."""
        method = self._routes.get(url)
        if method is not None:
            return method
        import moto.backend_index as backend_index
        import moto.backends as backends
        from moto.core.base_backend import BackendDict
        from moto.core.models import DEFAULT_ACCOUNT_ID

        host = urlsplit(url).netloc
        service = self._services.get(host)
        if service is None:
            service = next((name for name, pattern in backend_index.backend_url_patterns if pattern.match(url)), None)
            if service is None:
                raise ConnectionError(f"moto serves no service at {url}")
            self._services[host] = service
        backend_dict = backends.get_backend(service)  # type: ignore[call-overload]  # a service name found at run time
        if isinstance(backend_dict, BackendDict):
            regions = backend_dict[DEFAULT_ACCOUNT_ID]
            backend = regions[LOCAL_REGION] if LOCAL_REGION in regions else regions["aws"]
        else:
            backend = backend_dict["global"]
        for path, candidate in backend.urls.items():
            if re.compile(path).match(url):
                found: Callable[[Any, str, Any], Any] = candidate
                self._routes[url] = found
                return found
        raise ConnectionError(f"moto serves no route for {url}")

    def save_items(self, names: list[str]) -> dict[str, tuple[Any, Any]]:
        """A copy of each named table's items, with the table it was taken from."""
        tables = self._tables()
        return {name: (tables[name], copy.deepcopy(tables[name].items)) for name in names}

    def restore_items(self, saved: Mapping[str, tuple[Any, Any]]) -> bool:
        """Put ``save_items``'s copy back into its tables; False (nothing changed) when one of
        them is no longer moto's table of that name (another platform re-created it)."""
        tables = self._tables()
        if any(tables.get(name) is not table for name, (table, _) in saved.items()):
            return False
        for table, items in saved.values():
            table.items = copy.deepcopy(items)
        return True

    def items_of(self, name: str) -> list[dict[str, Any]]:
        """Every item of table ``name``, typed, as a consistent Scan answers them."""
        return [item.to_json()["Attributes"] for item in self._tables()[name].all_items()]

    @staticmethod
    def _tables() -> dict[str, Any]:
        from moto.dynamodb.models import dynamodb_backends

        return dynamodb_backends[MOTO_ACCOUNT_ID][LOCAL_REGION].tables

    def stop(self) -> None:
        """Nothing runs beside the process: moto's state goes with it (a reset clears the tables)."""


def hung_after_s(scenario: Mapping[str, Any]) -> float:
    """Seconds an answer of the local service may take before the effect counts as hung.

    The engine's effect hang bound (``Bounds.effect_hang_ms``, one resolution for every
    platform; ``budgetMs`` is the exploration budget), at least HUNG_FLOOR_MS.
    """
    return max(HUNG_FLOOR_MS, resolve_bounds(scenario).effect_hang_ms) / 1000


def _local_client(
    endpoint: str, *, connect_timeout: float, read_timeout: float, service: str = "dynamodb", server: Any = None
) -> Any:
    """A client of the local service: its endpoint, the local credentials, no retries; answered
    in this process when ``server`` is moto's in-process one."""
    in_process = isinstance(server, InProcessMoto)
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
            # In process DynamoDB's requests go unsigned: moto's DynamoDB checks no signature
            # (its server reads the service from one; the dispatch here reads the URL). S3's
            # stay signed: moto's S3 answers an unsigned request as an anonymous one.
            **({"signature_version": UNSIGNED} if in_process and service == "dynamodb" else {}),
        ),
    )
    # moto keeps its resources per account; the simulated ARNs name this one.
    client.meta.events.register("before-sign", _moto_account)
    if in_process:
        server.attach(client)
    return client


def _moto_account(request: Any, **_: Any) -> None:
    request.headers["x-moto-account-id"] = MOTO_ACCOUNT_ID
