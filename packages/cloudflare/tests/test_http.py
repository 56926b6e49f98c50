"""The http drive: the data http() builds, and a run of it through the real host."""

from pathlib import Path

import pytest

from eutaxy.cloudflare import create_platform, define_scenario, external, fetch_call, http, http_response
from eutaxy.cloudflare.host import find_node, find_runtime
from eutaxy.core.errors import UserError
from eutaxy.core.selectors import matches
from eutaxy.core.effects import Effect
from eutaxy.engine.check import replay_scenario


def test_requests_become_events_with_ids_and_the_caller_its_policy():
    """Events are req-1, req-2, ... with method, path, headers and body; the caller's defaults are filled in."""
    drive = http(
        [
            {"method": "post", "path": "/refunds", "headers": {"x-shop": "s-1"}, "body": {"orderId": "o-1"}},
            {"path": "/status?verbose=1"},
            {"id": "retry-me", "method": "PUT", "path": "/notes", "body": "plain text"},
        ]
    )
    assert {
        "kind": "http",
        "name": "http",
        "events": [
            {"id": "req-1", "method": "POST", "path": "/refunds", "headers": {"x-shop": "s-1"}, "body": {"orderId": "o-1"}},
            {"id": "req-2", "method": "GET", "path": "/status?verbose=1", "headers": {}, "body": None},
            {"id": "retry-me", "method": "PUT", "path": "/notes", "headers": {}, "body": "plain text"},
        ],
        "caller": {"retries": 0, "retryOn": "non-2xx", "delaysMs": [], "deadlineMs": None},
    } == drive


def test_the_caller_policy_is_taken_as_declared():
    drive = http([{"path": "/"}], retries=3, retry_on="5xx", delays_ms=[1000, 5000], deadline_ms=30000)
    assert {"retries": 3, "retryOn": "5xx", "delaysMs": [1000, 5000], "deadlineMs": 30000} == drive["caller"]


@pytest.mark.parametrize(
    "requests, options, message",
    [
        ([], {}, "at least one request"),
        ([{"method": "GET", "path": "/x", "body": {"a": 1}}], {}, "GET request takes no body"),
        ([{"method": "POST", "path": "x"}], {}, "starting with '/'"),
        ([{"method": "FLY", "path": "/x"}], {}, "method must be one of"),
        ([{"path": "/x", "query": "a"}], {}, "unknown fields query"),
        ([{"path": "/x", "headers": {"n": 1}}], {}, "headers must be a dict of strings"),
        ([{"method": "POST", "path": "/x", "body": (1, 2)}], {}, "body: \\(1, 2\\) \\(tuple\\) is not JSON data"),
        ([{"id": "a", "path": "/x"}, {"id": "a", "path": "/y"}], {}, "ids repeat"),
        ([{"id": "a#1", "path": "/x"}], {}, "without '#'"),
        ([{"path": "/x"}], {"retries": -1}, "retries must be"),
        ([{"path": "/x"}], {"retry_on": "4xx"}, "retry_on must be one of"),
        ([{"path": "/x"}], {"delays_ms": [1.5]}, "delays_ms must be"),
        ([{"path": "/x"}], {"deadline_ms": True}, "deadline_ms must be"),
    ],
)
def test_mistakes_are_user_errors(requests, options, message):
    with pytest.raises(UserError, match=message):
        http(requests, **options)


def test_a_hand_written_http_drive_is_checked_as_http_builds_it(tmp_path):
    """The runtime fills in nothing, so define_scenario rebuilds a plain-dict drive through http():
    a missing caller is the user's error here (exit 2), a whole one gets every request field."""
    root = _project(tmp_path)
    plain = {"kind": "http", "name": "http", "events": [{"path": "/x"}]}
    with pytest.raises(UserError, match="an http drive needs its caller"):
        define_scenario(name="plain", drive=plain, root=root, source=root / "plain.sim.py")
    caller = {"retries": 1, "retryOn": "5xx", "delaysMs": [], "deadlineMs": None}
    scenario = define_scenario(name="plain", drive={**plain, "caller": caller}, root=root, source=root / "plain.sim.py")
    assert http([{"path": "/x"}], retries=1, retry_on="5xx") == scenario["drive"]
    with pytest.raises(UserError, match="retry_on must be one of"):
        define_scenario(name="plain", drive={**plain, "caller": {**caller, "retryOn": "4xx"}}, root=root, source=root / "plain.sim.py")
    built = http([{"method": "POST", "path": "/y", "body": {"a": 1}}], retries=2, deadline_ms=100)
    assert built == define_scenario(name="built", drive=built, root=root, source=root / "built.sim.py")["drive"]


def test_http_response_selects_the_response_effect():
    """core's http_response selector matches what the runtime records for the response point."""
    payload = {"args": {"requestId": "req-1", "method": "POST", "path": "/refunds"}, "result": {"status": 201, "ok": True, "body": "created"}}
    effect = Effect(target="Http:/refunds", op="response", kind="result", payload=payload, invocation="req-1#1", ordinal=1, time=0)
    assert matches(http_response("/refunds"), effect)
    assert matches(http_response("/refunds", ok=True), effect)
    assert not matches(http_response("/refunds", ok=False), effect)


WORKER = """
export default {
  async fetch(request: Request, env: any, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/charge") {
      const order = await request.json<{ orderId: string }>();
      const reply = await fetch("https://api.pay.example/charges", {
        method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(order),
      });
      return new Response(await reply.text(), { status: reply.status });
    }
    if (url.pathname === "/elsewhere") await fetch("https://other.example/");
    return new Response("not found", { status: 404 });
  },
};
"""


def _project(tmp_path: Path) -> Path:
    (tmp_path / "worker.ts").write_text(WORKER)
    (tmp_path / "wrangler.jsonc").write_text(
        '{"name": "w", "main": "./worker.ts", "compatibility_date": "2026-01-01", "compatibility_flags": ["nodejs_compat"]}'
    )
    return tmp_path


def test_a_run_sends_each_request_and_resends_as_the_caller_says(toolchain, tmp_path):
    """Through the platform: the response effects, the caller's resend after crash_before, the external's calls."""
    root = _project(tmp_path)
    scenario = define_scenario(
        name="charge",
        drive=http([{"method": "POST", "path": "/charge", "body": {"orderId": "o-1"}}], retries=1),
        externals=[external("payments-api", "*.pay.example", [{"method": "POST", "path": "/charges", "body": {"id": "ch-1"}}])],
        root=root,
        source=root / "charge.sim.py",
    )
    schedule = {"faults": [{"invocation": "req-1#1", "ordinal": 1, "fault": "crash_before"}], "turns": []}
    with create_platform(scenario) as platform:
        result = replay_scenario(scenario, platform, schedule, seed="charge")["result"]
    assert {"kind": "completed"} == result["end"]
    responses = [e for e in result["effects"] if e["op"] == "response" and e["kind"] != "call"]
    assert [("req-1#1", "fault"), ("req-1#2", "result")] == [(e["invocation"], e["kind"]) for e in responses]
    assert {"status": 200, "ok": True, "body": '{"id":"ch-1"}'} == responses[1]["payload"]["result"]
    charged = [Effect.from_data(e) for e in result["effects"]]
    assert 2 == sum(1 for e in charged if matches(fetch_call("payments-api"), e))


def test_an_undeclared_host_is_unsupported(toolchain, tmp_path):
    root = _project(tmp_path)
    scenario = define_scenario(
        name="elsewhere", drive=http([{"path": "/elsewhere"}]), root=root, source=root / "elsewhere.sim.py"
    )
    with create_platform(scenario) as platform:
        end = replay_scenario(scenario, platform, {"faults": [], "turns": []}, seed="elsewhere")["result"]["end"]
    assert ("unsupported", "outbound_request") == (end["kind"], end["cause"])
    assert "https://other.example/" in end["detail"]


def test_the_runtime_mirrors_cores_redelivery_rule(toolchain):
    """The runtime's caller resends by core's may_redeliver, the caller's retries as the platform limit."""
    import json
    import subprocess

    from eutaxy.core.faults import may_redeliver

    node, _ = find_node(install=False)
    queue_module = (find_runtime() / "queue.mjs").as_uri()
    grid = [(attempts, limit, most) for attempts in range(1, 6) for limit in range(0, 5) for most in range(0, 5)]
    script = (
        f"const {{ mayRedeliver }} = await import({json.dumps(queue_module)});"
        f"const grid = {json.dumps(grid)};"
        "console.log(JSON.stringify(grid.map(([a, l, m]) => mayRedeliver(a, l, m))));"
    )
    out = subprocess.run([str(node), "--input-type=module", "-e", script], capture_output=True, text=True, check=True)
    assert [may_redeliver(*point) for point in grid] == json.loads(out.stdout)
