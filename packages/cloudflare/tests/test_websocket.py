"""websocket(...): the drive's events as the runtime reads them, and bad input named."""

import pytest

from eutaxy.cloudflare import define_scenario, websocket, websocket_received
from eutaxy.core.errors import UserError


def test_each_connection_is_its_open_then_its_messages():
    drive = websocket([
        {"path": "/rooms/a", "messages": [{"data": {"text": "hi"}}, {"data": "raw", "id": "m"}]},
        {"id": "bob", "path": "/rooms/a", "headers": {"x-user": "bob"}},
    ])
    assert "websocket" == drive["kind"]
    assert [
        {"id": "ws-1", "connection": "ws-1", "path": "/rooms/a", "headers": {}},
        {"id": "ws-1.1", "connection": "ws-1", "data": {"text": "hi"}},
        {"id": "m", "connection": "ws-1", "data": "raw"},
        {"id": "bob", "connection": "bob", "path": "/rooms/a", "headers": {"x-user": "bob"}},
    ] == drive["events"]


@pytest.mark.parametrize(
    ("connections", "words"),
    [
        ([], "non-empty list"),
        ([{"messages": []}], "path must be a string starting with '/'"),
        ([{"path": "/a", "messages": [{"text": "hi"}]}], "must be a dict with data"),
        ([{"path": "/a", "messages": [{"data": 2**60}]}], "data"),
        ([{"path": "/a", "room": "x"}], "unknown fields room"),
        ([{"id": "a", "path": "/a"}, {"id": "a", "path": "/b"}], "ids repeat"),
        ([{"id": "a#1", "path": "/a"}], "without '#'"),
    ],
)
def test_bad_connections_are_named(connections, words):
    with pytest.raises(UserError, match=words):
        websocket(connections)


def test_a_hand_written_drive_must_be_as_websocket_writes_it():
    with pytest.raises(UserError, match="build the drive with websocket"):
        define_scenario(name="x", worker={"entry": "w.js"}, drive={"kind": "websocket", "events": [{"id": "a", "path": "/a"}]}, invariants=[])


def test_websocket_received_selects_a_connections_frames():
    assert {"target": "WebSocket:ada", "op": "message"}.items() <= websocket_received("ada").items()
