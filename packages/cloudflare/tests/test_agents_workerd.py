"""The Agents SDK (the pinned `agents` package) on real workerd: an Agent of template size runs as written.

The fixture (agents/) is an Agent with state, this.sql, a schedule and a @callable method,
reached through routeAgentRequest and getAgentByName; its Worker imports `agents` without a
node_modules of its own, so the bundle takes the toolchain's pinned copy.
"""

import json
from pathlib import Path

import pytest

from eutaxy.cloudflare import create_platform, define_scenario, durable_object, durable_object_table, http, unique
from eutaxy.cloudflare.websocket import websocket
from eutaxy.engine.check import check_scenario, replay_scenario

pytestmark = pytest.mark.usefixtures("toolchain")

FIXTURE = Path(__file__).resolve().parent / "agents"


def scenario(requests, *, config="wrangler.jsonc", faults=1):
    return define_scenario(
        name="agent-counter",
        root=FIXTURE,
        source=FIXTURE / "agents.sim.py",
        worker={"entry": "./worker.ts", "config": f"./{config}"},
        setup=[durable_object("Counter")],
        drive=http(requests),
        invariants=[unique("one-row-per-visit", durable_object_table("Counter", "c-1", "visits"), "id", allow_vacuous=True)],
        bounds={"maxFaultsPerRun": faults, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
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


def test_a_template_agent_driven_through_http_is_bounded_or_violated():
    built = scenario(TEMPLATE)
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
