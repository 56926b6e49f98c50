"""The websocket drive on real workerd (websocket/: a chat room over the Hibernation API).

Each connection is opened by an upgrade request through the Worker's fetch, which hands it to
the room object answering 101 (ctx.acceptWebSocket); each message is one event, delivered by
calling the object's webSocketMessage with an alarm's faults; what the object sends is recorded
per connection at the end of the run, a close as a close effect.
"""

import shutil
from pathlib import Path

import pytest

from eutaxy.cloudflare import create_platform, define_scenario, durable_object, load_scenario, websocket
from eutaxy.engine.check import check_scenario, replay_scenario

pytestmark = pytest.mark.usefixtures("toolchain")

FIXTURE = Path(__file__).resolve().parent / "websocket"


def run(built, faults=()):
    with create_platform(built) as platform:
        return replay_scenario(built, platform, {"faults": list(faults), "turns": []}, seed="ws")["result"]


def chat():
    return load_scenario(FIXTURE / "chat.sim.py")


def points(result, op):
    """(invocation, connection, data, result) of each recorded `op` at a WebSocket target."""
    return [
        (e["invocation"], e["target"].removeprefix("WebSocket:"), e["payload"]["args"].get("data"), e["payload"].get("result"))
        for e in result["effects"]
        if e["target"].startswith("WebSocket:") and e["op"] == op and e["kind"] in ("result", "platform")
    ]


def history(result):
    [rows] = [e["payload"]["rows"] for e in result["effects"] if (e["kind"], e["target"], e["op"]) == ("snapshot", "DO:ROOMS", "r-1/history")]
    return [(row["name"], row["text"]) for row in rows]


def test_messages_reach_webSocketMessage_and_what_the_object_sends_is_recorded_per_connection():
    result = run(chat())
    assert "completed" == result["end"]["kind"], result["end"]
    assert [("ada#1", "ada", None, {"status": 101, "opened": True}), ("bob#1", "bob", None, {"status": 101, "opened": True})] == points(result, "open")
    sends = [(inv, conn, data, res["delivered"]) for inv, conn, data, res in points(result, "send")]
    assert [
        ("ada.1#1", "ada", '{"text":"hi"}', True),
        ("ada.2#1", "ada", '{"text":"/leave"}', True),
        ("ada.3#1", "ada", '{"text":"late"}', False),  # ada's socket was closed by the object
        ("bob.1#1", "bob", '{"text":"hello"}', True),
    ] == sends
    received = [(inv, conn, data) for inv, conn, data, _ in points(result, "message")]
    assert [
        ("websocket", "ada", '{"welcome":"ada","members":1}'),
        ("websocket", "ada", '{"from":"ada","text":"hi"}'),
        ("websocket", "bob", '{"welcome":"bob","members":2}'),
        ("websocket", "bob", '{"from":"bob","text":"hello"}'),
    ] == received
    closes = [(e["target"], e["payload"]["args"]) for e in result["effects"] if e["op"] == "close"]
    assert [("WebSocket:ada", {"code": 1000, "reason": "ada left"})] == closes
    assert [("ada", "hi"), ("bob", "hello")] == history(result)


@pytest.mark.parametrize("fault", ["crash_before", "crash_after", "error"])
def test_a_faulted_message_drops_the_instance_and_the_connection_is_found_again(fault):
    """After the fault the next instance finds ada's socket by its tag and attachment: /leave still closes it."""
    result = run(chat(), [{"invocation": "ada.1#1", "ordinal": 0, "fault": fault}])
    assert "completed" == result["end"]["kind"], result["end"]
    delivered = {inv: res["delivered"] for inv, _, _, res in points(result, "send") if res is not None}
    assert delivered["ada.2#1"] is True and delivered["ada.3#1"] is False
    expected = [("ada", "hi"), ("bob", "hello")] if fault == "crash_after" else [("bob", "hello")]
    assert expected == history(result)
    # Each fault ended the message's invocation: none of them is an error the handler threw.
    [ended] = [o for o in result["invocations"] if o["invocation"] == "ada.1#1"]
    assert ("crashed", None) == (ended["outcome"], ended.get("error"))


def test_the_chat_room_is_bounded():
    built = chat()
    with create_platform(built) as platform:
        verdict = check_scenario(built, platform, seed="1", max_runs=30)
    assert "bounded" == verdict["kind"], verdict


@pytest.mark.parametrize(("path", "cause"), [("/echo", "websocket_standard_api"), ("/self", "websocket_not_object")])
def test_the_standard_api_and_a_socket_the_worker_answers_itself_are_unsupported(path, cause):
    built = define_scenario(
        name="ws-unsupported",
        worker={"config": "./wrangler.json"},
        root=FIXTURE,
        source=FIXTURE / "chat.sim.py",
        setup=[durable_object("ROOMS"), durable_object("ECHO")],
        drive=websocket([{"path": path, "messages": [{"data": "x"}]}]),
        invariants=[],
        bounds={"maxFaultsPerRun": 0, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )
    result = run(built)
    assert ("unsupported", cause) == (result["end"]["kind"], result["end"].get("cause")), result["end"]


def test_in_a_concurrent_run_a_connections_open_and_messages_count_as_one_event_and_two_rooms_interleave():
    """maxConcurrentInvocations 2: ada in r-1 and bob in r-2: the two rooms interleave, neither refused."""
    built = define_scenario(
        name="ws-two-rooms",
        worker={"config": "./wrangler.json"},
        root=FIXTURE,
        source=FIXTURE / "chat.sim.py",
        setup=[durable_object("ROOMS")],
        drive=websocket([
            {"id": "ada", "path": "/rooms/r-1?name=ada", "messages": [{"data": {"text": "hi"}}, {"data": {"text": "again"}}]},
            {"id": "bob", "path": "/rooms/r-2?name=bob", "messages": [{"data": {"text": "hello"}}]},
        ]),
        invariants=[],
        bounds={"maxFaultsPerRun": 0, "maxConcurrentInvocations": 2, "budgetMs": 60_000},
    )
    result = run(built)
    assert "completed" == result["end"]["kind"], result["end"]
    sends = {inv: res["delivered"] for inv, _, _, res in points(result, "send") if res is not None}
    assert {"ada.1#1": True, "ada.2#1": True, "bob.1#1": True} == sends
    assert [("ada", "hi"), ("ada", "again")] == history(result)


def test_in_a_concurrent_run_a_lost_answers_webSocketClose_that_awaits_a_timer_runs_as_the_rooms_work(tmp_path):
    """ambiguous at ada's upgrade, maxConcurrentInvocations 2, in a copy of the room whose
    webSocketClose awaits a timer before it records the departure: workerd calls it for the
    socket whose answer was lost, and it runs to its end as the room's work after its answers
    (DO:ROOMS/r-1/after), its timer fired in virtual time, rather than being refused."""
    shutil.copytree(FIXTURE, tmp_path / "chat")
    source = tmp_path / "chat" / "src" / "index.ts"
    original = "  async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {\n"
    text = source.read_text()
    assert original in text
    source.write_text(text.replace(original, original + (
        "    await new Promise((resolve) => setTimeout(resolve, 50));\n"
        "    this.ctx.storage.sql.exec(\"INSERT INTO history (name, text) VALUES (?, ?)\", \"departed\", String(code));\n"
    )))
    built = define_scenario(
        name="ws-lost-answer",
        worker={"config": "./wrangler.json"},
        root=tmp_path / "chat",
        source=tmp_path / "chat" / "chat.sim.py",
        setup=[durable_object("ROOMS")],
        drive=websocket([
            {"id": "ada", "path": "/rooms/r-1?name=ada", "messages": [{"data": {"text": "hi"}}]},
            {"id": "bob", "path": "/rooms/r-1?name=bob", "messages": [{"data": {"text": "hello"}}]},
        ]),
        invariants=[],
        bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 2, "budgetMs": 60_000},
    )
    result = run(built, [{"invocation": "ada#1", "ordinal": 0, "fault": "ambiguous"}])
    assert "completed" == result["end"]["kind"], result["end"]
    assert ("departed", "1006") in history(result)
    assert ("bob", "hello") in history(result)
