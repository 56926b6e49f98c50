"""The websocket drive: connections opened through the Worker's ``fetch()``, then messages.

Each connection is opened by an upgrade request (one event, the connection's id) that the
Worker hands to a Durable Object answering 101 over the Hibernation API
(``ctx.acceptWebSocket``); its messages are sent in order, one event each
(``<connection>.<n>``), delivered by calling the object's ``webSocketMessage``. Opens run one
at a time in the order listed; messages of different connections may interleave.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from eutaxy.core.errors import UserError
from eutaxy.core.plain_data import json_problem
from eutaxy.engine.holes import Hole

from .http import known_fields, request_headers, request_path

__all__ = ["websocket"]

_CONNECTION_FIELDS = frozenset({"id", "path", "headers", "messages"})
_MESSAGE_FIELDS = frozenset({"id", "data"})


def websocket(connections: Sequence[Mapping[str, Any]] | Hole, *, name: str = "websocket") -> dict[str, Any]:
    """Drive the Worker over WebSocket connections.

    Each connection is ``{"path": "/rooms/r-1", "messages": [{"data": {"text": "hi"}}]}``:
    ``path`` (required) starts with ``/``; ``headers`` are added to the upgrade request;
    a message's ``data`` is a string (sent as a text frame as is) or any JSON value (sent as
    its JSON text). A connection may name its ``id`` (default ``ws-1``, ``ws-2``, ...) and a
    message its own (default ``<connection>.1``, ...); ids hold no ``#``.

    Returns:
        The drive as the contract's plain dict (``kind: "websocket"``, ``events``): per
        connection its open event ``{id, connection, path, headers}`` then its messages
        ``{id, connection, data}``.
    """
    if not isinstance(name, str) or not name:
        raise UserError(f"websocket: name must be a non-empty string, got {name!r}")
    if isinstance(connections, Hole):
        # A draft's todo(...): define_scenario refuses it, naming the hole and its line.
        return {"kind": "websocket", "name": name, "events": connections}
    if isinstance(connections, (str, bytes, Mapping)) or not isinstance(connections, Sequence) or not connections:
        raise UserError(f"websocket: connections must be a non-empty list of {{'path', 'messages'}}, got {connections!r}")
    events: list[dict[str, Any]] = []
    for index, connection in enumerate(connections):
        events.extend(_connection(connection, index))
    ids = [event["id"] for event in events]
    if len(set(ids)) != len(ids):
        raise UserError(f"websocket: connection and message ids repeat: {ids}")
    return {"kind": "websocket", "name": name, "events": events}


def _id(value: Any, default: str, label: str) -> str:
    found = value if value is not None else default
    if not isinstance(found, str) or not found or "#" in found:
        raise UserError(f"{label}: id must be a non-empty string without '#', got {found!r}")
    return found


def _connection(connection: Any, index: int) -> list[dict[str, Any]]:
    label = f"websocket: connection {index}"
    connection = known_fields(connection, label, _CONNECTION_FIELDS, "a path and messages", "connection", ", ".join(sorted(_CONNECTION_FIELDS)))
    conn = _id(connection.get("id"), f"ws-{index + 1}", label)
    path = request_path(connection.get("path"), f"{label} ({conn})")
    headers = request_headers(connection.get("headers", {}), f"{label} ({conn})")
    messages = connection.get("messages", [])
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Sequence):
        raise UserError(f"{label} ({conn}): messages must be a list of {{'data': ...}}, got {messages!r}")
    events: list[dict[str, Any]] = [{"id": conn, "connection": conn, "path": path, "headers": headers}]
    for number, message in enumerate(messages, start=1):
        where = f"{label} ({conn}) message {number - 1}"
        if not isinstance(message, Mapping) or "data" not in message:
            raise UserError(f"{where} must be a dict with data, got {message!r}")
        unknown = set(message) - _MESSAGE_FIELDS
        if unknown:
            raise UserError(f"{where} has unknown fields {', '.join(sorted(unknown))}; a message has data and id")
        problem = json_problem(message["data"], "data", tuples=False, safe_integers=True)
        if problem is not None:
            raise UserError(f"{where}: {problem}")
        events.append({"id": _id(message.get("id"), f"{conn}.{number}", where), "connection": conn, "data": message["data"]})
    return events
