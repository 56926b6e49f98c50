"""Scripted service bindings, end to end in workerd: the shop Worker (service/) calls the orders
Worker behind ORDERS, which its ``service`` step scripts.

Each call through the binding is one effect at ``Service:ORDERS``; a check finds the
reservation made twice when the first call's answer is lost (ambiguous) and the Worker calls
again; every verdict says the callee was scripted; and each use the script cannot answer ends the
run UNSUPPORTED with its own cause.
"""

import shutil
from pathlib import Path

import pytest

from eutaxy.cloudflare import at_most_once_per_key, create_platform, http, service, service_call, service_error, service_replies
from eutaxy.cloudflare.worker import prepare_worker
from eutaxy.core.effects import as_effects
from eutaxy.core.selectors import matches
from eutaxy.engine.check import check_scenario, replay_scenario
from worker_project import scenario_in

FIXTURE = Path(__file__).resolve().parent / "service"
NO_FAULTS = {"faults": [], "turns": []}
ORDERS = service(
    "ORDERS",
    methods={"reserve": {"held": True}, "store": {"name": "s-1"}},
    fetch=[
        {"method": "GET", "path": "/status", "body": "open"},
        {"method": "GET", "path": "/old", "status": 302, "headers": {"Location": "https://orders.internal/new"}},
    ],
)
ONE_RESERVE = at_most_once_per_key("one-reserve-per-order", service_call("ORDERS", "reserve"), "args.args.0")

pytestmark = pytest.mark.usefixtures("toolchain")


def _request(path):
    """A GET of ``path``, but /checkout: a POST of order o-1."""
    return {"method": "POST", "path": path, "body": {"orderId": "o-1"}} if path == "/checkout" else {"method": "GET", "path": path}


def _scenario(paths, setup=(ORDERS,), invariants=()):
    """The shop Worker's requests for ``paths``, one fault at most per run, one invocation at a time."""
    bounds = {"maxFaultsPerRun": 1, "maxConcurrentInvocations": 1, "budgetMs": 60_000}
    drive = http([_request(path) for path in paths])
    return scenario_in(FIXTURE, "shop", worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"}, setup=list(setup), drive=drive,
                       invariants=list(invariants), bounds=bounds)


@pytest.fixture(scope="module")
def platform():
    with create_platform(_scenario(["/checkout"])) as made:
        yield made


def _run(platform, paths, schedule=NO_FAULTS):
    return replay_scenario(_scenario(paths), platform, schedule, seed="service")["result"]


def _calls(result, kind="result"):
    return [(e["op"], e["payload"]) for e in result["effects"] if e["target"] == "Service:ORDERS" and e["kind"] == kind]


def _bodies(result):
    return [e["payload"]["result"]["body"] for e in result["effects"] if e["op"] == "response" and e["kind"] == "result"]


def test_the_config_binding_and_its_step_travel_in_the_kinds_load_entry():
    """The services section is the kind's: ORDERS with its step, Worker and entrypoint; PLAIN with none (a trap at run time)."""
    entry = prepare_worker(_scenario(["/checkout"])).load_message()["worker"]["kinds"]["service"]
    assert {"service": "orders", "entrypoint": "OrdersApi", "owner": None} == entry["bindings"]["ORDERS"]["settings"]
    assert ORDERS == entry["bindings"]["ORDERS"]["setup"]
    assert (None, 'service("PLAIN", methods={...}, fetch=[...])') == (entry["bindings"]["PLAIN"]["setup"], entry["bindings"]["PLAIN"]["setupHint"])
    assert {"call": ["crash_before", "crash_after", "ambiguous", "error"]} == entry["policy"]["ladders"]


def test_each_call_is_one_effect_answered_from_the_script(platform):
    """An RPC call and a fetch() through the binding, each one effect with what the script answered."""
    result = _run(platform, ["/checkout", "/status"])
    assert {"kind": "completed"} == result["end"]
    assert [
        ("reserve", {"args": {"args": ["o-1"]}, "result": {"ok": True, "value": {"held": True}}}),
        ("fetch", {"args": {"url": "https://orders.internal/status", "method": "GET", "headers": {}, "body": None},
                   "result": {"status": 200, "ok": True, "body": "open"}}),
    ] == _calls(result)
    assert [{"held": True}, "open"] == _bodies(result)
    assert 1 == sum(matches(service_call("ORDERS", "reserve"), effect) for effect in as_effects(result["effects"]))


def test_a_lost_answer_makes_the_reservation_twice_and_a_check_finds_it(platform):
    """ambiguous: the callee reserved and the answer was lost, so the Worker's second call reserves again;
    error: the call never reached the callee, so the second call is the only reservation."""
    ambiguous = _run(platform, ["/checkout"], {"faults": [{"invocation": "req-1#1", "ordinal": 0, "fault": "ambiguous"}], "turns": []})
    assert [("reserve", "ambiguous")] == [(op, payload["fault"]) for op, payload in _calls(ambiguous, "fault")]
    assert 2 == len(_calls(ambiguous))
    refused = _run(platform, ["/checkout"], {"faults": [{"invocation": "req-1#1", "ordinal": 0, "fault": "error"}], "turns": []})
    assert 1 == len(_calls(refused))
    verdict = check_scenario(_scenario(["/checkout"], invariants=[ONE_RESERVE]), platform, seed="service", max_runs=40, module_state_runs=0)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "one-reserve-per-order" == verdict["violation"]["invariant"]
    assert [{"invocation": "req-1#1", "ordinal": 0, "fault": "ambiguous"}] == verdict["schedule"]["faults"]
    [said] = [sentence for sentence in verdict["provenance"]["assumptions"] if sentence.startswith("Callees were scripted")]
    assert "ORDERS (Worker orders, entrypoint OrdersApi): reserve() returns; store() returns; fetch GET /status -> 200; fetch GET /old -> 302" in said
    assert "PLAIN (Worker plain)" in said


def test_a_scripted_error_is_thrown_to_the_caller_as_rpc_carries_it():
    """reserve throws twice (the Worker calls again once), then the request fails with the error workerd would deliver."""
    scenario = _scenario(["/checkout"], setup=[service("ORDERS", methods={"reserve": service_error("SoldOut", "no stock")})])
    with create_platform(scenario) as platform:
        result = replay_scenario(scenario, platform, NO_FAULTS, seed="service")["result"]
    assert [{"ok": False, "error": {"name": "SoldOut", "message": "no stock"}}] * 2 == [payload["result"] for _, payload in _calls(result)]
    assert 1 == sum(matches(service_call("ORDERS", ok=False), effect) for effect in as_effects(result["effects"][:2]))
    [failed] = [i for i in result["invocations"] if i["invocation"] == "req-1#1"]
    assert ("threw", "Error", "SoldOut: no stock") == (failed["outcome"], failed["error"]["name"], failed["error"]["message"])


def test_a_scripted_error_keeps_its_name_when_the_caller_has_enhanced_error_serialization(tmp_path):
    """The scripted Worker has no config, so it is taken to have its caller's setting: at compatibility
    date 2026-04-21 (enhanced_error_serialization on, as workerd answers for the loaded Worker) the
    SoldOut error crosses with its name, as between two Workers with it on (rpc_thrown.json)."""
    project = tmp_path / "shop"
    shutil.copytree(FIXTURE, project)
    config = project / "wrangler.jsonc"
    config.write_text(config.read_text().replace('"compatibility_date": "2025-09-01"', '"compatibility_date": "2026-04-21"'))
    scenario = scenario_in(project, "shop", worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
                           setup=[service("ORDERS", methods={"reserve": service_error("SoldOut", "no stock")})],
                           drive=http([_request("/checkout")]), invariants=[],
                           bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 1, "budgetMs": 60_000})
    with create_platform(scenario) as platform:
        result = replay_scenario(scenario, platform, NO_FAULTS, seed="service")["result"]
    [failed] = [i for i in result["invocations"] if i["invocation"] == "req-1#1"]
    assert ("threw", "SoldOut", "no stock") == (failed["outcome"], failed["error"]["name"], failed["error"]["message"])


def test_a_methods_replies_in_turn_answer_its_calls_that_reach_the_callee():
    """reserve throws Busy, then returns: the Worker's second call gets the hold; when the first call
    never reached the callee (error), the second is the first to and gets Busy, and the request fails."""
    busy_then_held = service_replies(service_error("Busy", "try again"), {"held": True})
    scenario = _scenario(["/checkout"], setup=[service("ORDERS", methods={"reserve": busy_then_held})])
    first_refused = {"faults": [{"invocation": "req-1#1", "ordinal": 0, "fault": "error"}], "turns": []}
    with create_platform(scenario) as platform:
        clean = replay_scenario(scenario, platform, NO_FAULTS, seed="service")["result"]
        refused = replay_scenario(scenario, platform, first_refused, seed="service")["result"]
    busy = {"ok": False, "error": {"name": "Busy", "message": "try again"}}
    assert [busy, {"ok": True, "value": {"held": True}}] == [payload["result"] for _, payload in _calls(clean)]
    assert [{"held": True}] == _bodies(clean)
    assert [busy] == [payload["result"] for _, payload in _calls(refused)]
    [failed] = [i for i in refused["invocations"] if i["invocation"] == "req-1#1"]
    assert ("threw", "Busy: try again") == (failed["outcome"], failed["error"]["message"])
    [said] = [sentence for sentence in prepare_worker(scenario).assumptions if sentence.startswith("Callees were scripted")]
    assert "ORDERS (Worker orders, entrypoint OrdersApi): reserve() throws Busy, then returns" in said
    assert "A method's replies in turn go to its calls that reach the callee in a run, the n-th to the n-th" in said


#: Each path of the Worker that uses ORDERS (PLAIN for /plain) as the script cannot answer: the cause, and words of its detail.
UNANSWERABLE = {
    "/unscripted": ("service_method_unscripted", "missing() was called, but its service step scripts no reply for it"),
    "/unmatched": ("service_fetch_unmatched", "fetch GET /nowhere: its service step scripts no route for it"),
    "/redirect": ("service_redirect", "fetch GET /old is answered 302 with a Location, which the runtime would follow"),
    "/connect": ("service_connect", "connect() opens a socket to the callee"),
    "/pipelined": ("rpc_pipelining", "store()'s result was used before it was awaited (.get)"),
    "/plain": ("binding_without_setup", 'service binding PLAIN was touched (.reserve) but no setup step resets it; add service("PLAIN"'),
}


@pytest.mark.parametrize("path", list(UNANSWERABLE))
def test_each_use_the_script_cannot_answer_is_unsupported_with_its_cause(platform, path):
    cause, words = UNANSWERABLE[path]
    result = _run(platform, [path])
    assert ("unsupported", cause) == (result["end"]["kind"], result["end"]["cause"])
    assert words in result["end"]["detail"]
