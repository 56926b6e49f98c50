"""The Agents SDK (the pinned `agents` package) on real workerd: an Agent of template size runs as written.

The fixture (agents/) is an Agent with state, this.sql, a schedule and a @callable method,
reached through routeAgentRequest and getAgentByName; its Worker imports `agents` without a
node_modules of its own, so the bundle takes the toolchain's pinned copy. agents/room.ts is a
chat room of template size on the SDK, driven over WebSocket connections with faults.
"""

import json
from pathlib import Path

import pytest

from eutaxy.cloudflare import create_platform, define_scenario, durable_object, durable_object_table, external, http, unique
from eutaxy.cloudflare.websocket import websocket
from eutaxy.engine.check import check_scenario, replay_scenario

pytestmark = pytest.mark.usefixtures("toolchain")

FIXTURE = Path(__file__).resolve().parent / "agents"


def scenario(requests, *, config="wrangler.jsonc", faults=1, concurrent=1):
    return define_scenario(
        name="agent-counter",
        root=FIXTURE,
        source=FIXTURE / "agents.sim.py",
        worker={"entry": "./worker.ts", "config": f"./{config}"},
        setup=[durable_object("Counter")],
        drive=http(requests),
        invariants=[unique("one-row-per-visit", durable_object_table("Counter", "c-1", "visits"), "id", allow_vacuous=True)],
        bounds={"maxFaultsPerRun": faults, "maxConcurrentInvocations": concurrent, "budgetMs": 60_000},
    )


TEMPLATE = [
    {"method": "POST", "path": "/agents/counter/c-1", "body": {"who": "ann"}},
    {"method": "POST", "path": "/direct", "body": {}},
    {"method": "GET", "path": "/agents/counter/c-1"},
]


def test_the_agents_state_sql_and_schedule_live_in_its_sqlite_tables_and_the_schedule_fires_over_its_alarm():
    built = scenario(TEMPLATE)
    with create_platform(built) as platform:
        result = replay_scenario(built, platform, {"faults": [], "turns": []}, seed="agents")["result"]
    assert "completed" == result["end"]["kind"], result["end"]
    calls = [(e["invocation"], e["target"], e["op"]) for e in result["effects"] if e["kind"] == "call"]
    # routeAgentRequest found the namespace among the Worker's bindings and forwarded the request to c-1.
    assert ("req-1#1", "DO:Counter", "fetch") in calls, calls
    # getAgentByName's stub: the @callable method is one stub call.
    assert ("req-2#1", "DO:Counter", "increment") in calls, calls
    # The two schedules (60 s each) fire over the object's one alarm, in virtual time, after the requests.
    alarms = [c for c in calls if c[2] == "alarm"]
    assert alarms and all(c[0].startswith("DO:Counter/c-1/alarm") for c in alarms), calls
    responses = [e["payload"]["result"]["body"] for e in result["effects"] if e["op"] == "response" and e["kind"] == "result"]
    # The GET answers before the schedules fire (60 s later in virtual time).
    assert [{"count": 1}, {"count": 2}, {"count": 2, "last": "direct"}] == responses
    rows = {e["op"]: e["payload"]["rows"] for e in result["effects"] if e["kind"] == "snapshot" and e["target"] == "DO:Counter"}
    assert [{"id": 1, "who": "ann"}, {"id": 2, "who": "direct"}] == rows["c-1/visits"]
    # setState is a write to the SDK's own table: the snapshot holds it, after both tallies ran.
    [state] = rows["c-1/cf_agents_state"]
    assert {"count": 2, "last": "tallied direct: 2"} == json.loads(state["state"])
    # The schedules are rows of the SDK's jobs table: each ran and was deleted, none is left pending.
    assert [] == rows["c-1/cf_agents_jobs"]


@pytest.mark.parametrize("concurrent", [1, 2])
def test_a_template_agent_driven_through_http_is_bounded_or_violated(concurrent):
    built = scenario(TEMPLATE, concurrent=concurrent)
    with create_platform(built) as platform:
        verdict = check_scenario(built, platform, max_runs=8, seed="agents")
    assert verdict["kind"] in ("bounded", "violated"), verdict.get("cause")


def test_over_the_websocket_drive_a_callable_is_called_by_the_sdks_rpc_message_and_its_answer_and_state_are_recorded():
    """The SDK's own protocol over a connection: an rpc message calls the @callable method; what
    the Agent sends back (its state broadcast, the rpc answer) is recorded per connection."""
    built = scenario([{"path": "/"}])
    built["drive"] = websocket([{"path": "/agents/counter/c-1", "messages": [{"data": {"type": "rpc", "id": "r1", "method": "increment", "args": ["ws"]}}]}])
    with create_platform(built) as platform:
        result = replay_scenario(built, platform, {"faults": [], "turns": []}, seed="agents")["result"]
    assert "completed" == result["end"]["kind"], result["end"]
    frames = [json.loads(e["payload"]["args"]["data"]) for e in result["effects"] if e["target"] == "WebSocket:ws-1" and e["op"] == "message"]
    answers = [frame for frame in frames if frame.get("type") == "rpc" and frame.get("id") == "r1" and frame.get("done")]
    assert [1] == [frame["result"] for frame in answers], frames
    assert any(frame.get("type") == "cf_agent_state" and {"count": 1, "last": "ws"} == frame.get("state") for frame in frames), frames
    rows = {e["op"]: e["payload"]["rows"] for e in result["effects"] if e["kind"] == "snapshot" and e["target"] == "DO:Counter"}
    assert [{"id": 1, "who": "ws"}] == rows["c-1/visits"]


def test_an_agent_calling_an_ai_binding_is_unsupported_by_name():
    built = scenario([{"method": "GET", "path": "/agents/counter/c-1"}], config="wrangler-ai.jsonc", faults=0)
    built["worker"]["entry"] = "./ai.ts"
    with create_platform(built) as platform:
        verdict = check_scenario(built, platform, max_runs=1, module_state_runs=0)
    assert "unsupported" == verdict["kind"], verdict
    assert "binding_not_allowed" == verdict["cause"]["kind"], verdict["cause"]


def room(*, concurrent=1):
    """Two members of one Agents SDK chat room (agents/room.ts), with faults."""
    return define_scenario(
        name="agent-room",
        root=FIXTURE,
        source=FIXTURE / "agents.sim.py",
        worker={"entry": "./room.ts", "config": "./wrangler-room.jsonc"},
        setup=[durable_object("Room")],
        externals=[external("moderation", "moderation.example", [{"method": "POST", "path": "/check", "status": 200, "body": {"allowed": True}}])],
        drive=websocket([
            {"id": "ada", "path": "/agents/room/r-1", "messages": [{"data": {"text": "hi"}}, {"data": {"text": "again"}}]},
            {"id": "bob", "path": "/agents/room/r-1", "messages": [{"data": {"text": "hello"}}]},
        ]),
        invariants=[unique("one-message-per-seq", durable_object_table("Room", "r-1", "messages"), "seq")],
        bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": concurrent, "budgetMs": 120_000},
    )


def replayed_room(faults, *, concurrent=1):
    built = room(concurrent=concurrent)
    with create_platform(built) as platform:
        result = replay_scenario(built, platform, {"faults": faults, "turns": []}, seed="room")["result"]
    assert "completed" == result["end"]["kind"], result["end"]
    rows = {e["op"]: e["payload"]["rows"] for e in result["effects"] if e["kind"] == "snapshot" and e["target"] == "DO:Room"}
    sends = {e["invocation"]: e["payload"]["result"].get("delivered") for e in result["effects"] if e["op"] == "send" and e["kind"] in ("result", "platform")}
    opens = {e["invocation"]: e["payload"]["result"]["opened"] for e in result["effects"] if e["op"] == "open" and e["kind"] in ("result", "platform")}
    return rows, sends, opens


def test_an_open_whose_101_answer_a_fault_lost_leaves_a_socket_the_room_hears_go_and_the_sdks_retry_opens_the_connection():
    """ambiguous at ada's upgrade: the room accepted a socket whose answer never reached the
    client, so workerd calls its webSocketClose with 1006 (not clean); the SDK's routing retries
    the retryable error, and the connection opens on the second socket and takes its messages."""
    rows, sends, opens = replayed_room([{"invocation": "ada#1", "ordinal": 0, "fault": "ambiguous"}])
    assert [{"code": 1006, "clean": 0}] == rows["r-1/departures"]
    assert {"ada#1": True, "bob#1": True} == opens
    assert {"ada.1#1": True, "ada.2#1": True, "bob.1#1": True} == sends
    assert ["again", "hello", "hi"] == sorted(row["text"] for row in rows["r-1/messages"])


def test_in_a_concurrent_run_the_lost_answers_webSocketClose_is_the_rooms_work_after_its_answer():
    """The same lost 101 answer with maxConcurrentInvocations 2: the room's webSocketClose runs as
    its own work (DO:Room/r-1/after), modelled as in a sequential run, not refused."""
    rows, sends, opens = replayed_room([{"invocation": "ada#1", "ordinal": 0, "fault": "ambiguous"}], concurrent=2)
    assert [{"code": 1006, "clean": 0}] == rows["r-1/departures"]
    assert {"ada#1": True, "bob#1": True} == opens
    assert {"ada.1#1": True, "ada.2#1": True, "bob.1#1": True} == sends
    assert ["again", "hello", "hi"] == sorted(row["text"] for row in rows["r-1/messages"])


def test_an_open_whose_worker_died_after_the_room_answered_fails_and_its_messages_are_not_delivered():
    """crash_after at ada's upgrade: the Worker died with the answer, so the client saw an error;
    the room hears the socket go (1006) and ada's messages are recorded as not delivered."""
    rows, sends, opens = replayed_room([{"invocation": "ada#1", "ordinal": 0, "fault": "crash_after"}])
    assert [{"code": 1006, "clean": 0}] == rows["r-1/departures"]
    assert {"ada#1": False, "bob#1": True} == opens
    assert {"ada.1#1": False, "ada.2#1": False, "bob.1#1": True} == sends
    assert ["hello"] == [row["text"] for row in rows["r-1/messages"]]


@pytest.mark.parametrize("concurrent", [1, 2])
def test_a_template_chat_room_on_the_sdk_with_faults_is_bounded_or_violated(concurrent):
    built = room(concurrent=concurrent)
    with create_platform(built) as platform:
        verdict = check_scenario(built, platform, max_runs=40, seed="room")
    assert verdict["kind"] in ("bounded", "violated"), verdict.get("cause")
    assert verdict["provenance"]["faultsInjected"] > 0, verdict["provenance"]


def test_a_crash_inside_the_room_resets_it_and_workerd_disconnects_its_sockets_so_later_messages_are_not_delivered():
    """crash_before at the moderation fetch of ada's first message: the crash resets the room
    (ctx.abort()), which disconnects every socket it held: ada's next message is not delivered;
    bob, who connects after the reset (a sequential run opens him after ada's messages), is."""
    rows, sends, opens = replayed_room([{"invocation": "ada.1#1", "ordinal": 1, "fault": "crash_before"}])
    assert {"ada#1": True, "bob#1": True} == opens
    assert {"ada.1#1": None, "ada.2#1": False, "bob.1#1": True} == sends, sends
    assert ["hello"] == [row["text"] for row in rows["r-1/messages"]]
