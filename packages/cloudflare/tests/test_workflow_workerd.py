"""The Workflow binding's record, end to end in workerd: the binding's API and the engine model's rules.

The Worker (workflows/) drives the binding through its own fetch(): create, create with an id
that exists, get of an unknown id, status(); its Workflow's run() does one engine rule per mode:
retries with their delay in virtual time until they are spent, a NonRetryableError, a caught
step error, sleepUntil, the event run() receives. Each test replays one schedule and reads the
effect log, the responses and the instances' snapshot.
"""

from pathlib import Path

import pytest

from eutaxy.cloudflare import create_platform, define_scenario, http, workflow, workflow_create, workflow_rows, workflow_step
from eutaxy.cloudflare.bindings.workflow import WORKFLOW
from eutaxy.cloudflare.wrangler import read_config
from eutaxy.core.effects import as_effects
from eutaxy.core.selectors import matches
from eutaxy.engine.check import replay_scenario

FIXTURE = Path(__file__).resolve().parent / "workflows"
NO_FAULTS = {"faults": [], "turns": []}
EPOCH_MS = 1767225600000

pytestmark = pytest.mark.usefixtures("toolchain")


SETUP = (workflow("FLOW"),)


def _scenario(requests, setup=SETUP):
    return define_scenario(
        name="workflow-engine",
        root=FIXTURE,
        source=FIXTURE / "workflow.sim.py",
        worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
        setup=list(setup),
        drive=http(requests),
        invariants=[],
        bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )


@pytest.fixture(scope="module")
def platform():
    with create_platform(_scenario([{"method": "GET", "path": "/missing"}])) as made:
        yield made


def _run(platform, requests, schedule=NO_FAULTS, setup=SETUP):
    return replay_scenario(_scenario(requests, setup), platform, schedule, seed="workflow")["result"]


def _create(mode, id="i-1", again=False):
    return {"method": "POST", "path": "/create", "body": {"id": id, "params": {"mode": mode}, "again": again}}


def _responses(result):
    return [e["payload"]["result"]["body"] for e in result["effects"] if e["op"] == "response" and e["kind"] == "result"]


def _instances(result):
    [rows] = [e["payload"]["rows"] for e in result["effects"] if (e["kind"], e["target"], e["op"]) == ("snapshot", "Workflow:FLOW", "instances")]
    return rows


def _points(result, op, kind="call"):
    return [e for e in result["effects"] if (e["target"], e["op"], e["kind"]) == ("Workflow:FLOW", op, kind)]


def test_the_config_gives_each_binding_its_class_and_name_and_another_workers_is_a_trap():
    config = read_config(FIXTURE / "wrangler.jsonc")
    assert {"FLOW": "Flow"} == WORKFLOW.resources(config)
    assert [("workflow", "REMOTE")] == WORKFLOW.unmodelled(config)
    entry = WORKFLOW.load_entry(config, [workflow("FLOW")])
    assert {"className": "Flow", "workflowName": "engine-flow"} == entry["bindings"]["FLOW"]["settings"]
    assert entry["miniflare"] == {} and entry["policy"]["stepRetries"] == {"limit": 5, "delayMs": 10_000, "backoff": "exponential"}


def test_create_runs_the_instance_and_an_existing_id_or_an_unknown_get_throws_miniflares_messages(platform):
    result = _run(platform, [_create("plain", again=True), {"method": "GET", "path": "/status/i-1"}, {"method": "GET", "path": "/missing"}])
    assert "completed" == result["end"]["kind"]
    again, status, missing = _responses(result)
    assert {"again": "instance.already_exists"} == again
    assert {"status": "complete", "output": {"mode": "plain"}, "error": None} == status
    assert {"error": "instance.not_found"} == missing
    creates = [e for e in as_effects(result["effects"]) if matches(workflow_create("FLOW"), e)]
    assert ["i-1"] == [e.payload["result"]["id"] for e in creates], "the second create threw: not selected"
    assert [{"id": "i-1", "status": "complete", "params": {"mode": "plain"}, "output": {"mode": "plain"}}] == _instances(result)
    invocations = {(o["invocation"], o["drive"], o["outcome"]) for o in result["invocations"]}
    assert ("Workflow:FLOW/i-1#1", "workflow", "returned") in invocations


def test_failed_attempts_are_retried_after_their_delay_in_virtual_time_until_the_limit(platform):
    result = _run(platform, [_create("retry-then-fail")])
    attempts = [(e["payload"]["args"]["attempt"], e["time"] - EPOCH_MS) for e in _points(result, "step")]
    assert [1, 2, 3] == [attempt for attempt, _ in attempts], "limit 2: the first attempt and two retries"
    # linear backoff from 1 s: 1 s after the first failure, 2 s after the second (plus 1 ms per point)
    (_, first), (_, second), (_, third) = attempts
    assert 1000 <= second - first < 1010 and 2000 <= third - second < 2010, attempts
    results = [e for e in as_effects(result["effects"]) if matches(workflow_step("FLOW", "flaky"), e)]
    assert 3 == len(results) and all("error" in e.payload["result"] for e in results)
    [instance] = _instances(result)
    assert "errored" == instance["status"] and instance["error"]["message"].startswith("boom at ")
    [persisted] = [e["payload"]["rows"] for e in result["effects"] if (e["kind"], e["op"]) == ("snapshot", "steps")]
    assert [{"instance": "i-1", "step": "flaky", "count": 1, "error": instance["error"]}] == persisted


def test_a_non_retryable_error_is_not_retried_and_a_caught_step_error_completes(platform):
    result = _run(platform, [_create("non-retryable", id="n-1"), _create("caught", id="c-1")])
    assert [("n-1", 1), ("c-1", 1)] == [(e["payload"]["args"]["instance"], e["payload"]["args"]["attempt"]) for e in _points(result, "step")]
    by_id = {row["id"]: row for row in _instances(result)}
    assert {"name": "NonRetryableError", "message": "nope"} == by_id["n-1"]["error"] and "errored" == by_id["n-1"]["status"]
    assert {"caught": "expected", "label": "flow"} == by_id["c-1"]["output"], "the class's own field initialiser ran"


def test_sleep_until_waits_in_virtual_time_and_a_restart_does_not_sleep_again(platform):
    result = _run(platform, [_create("sleep-until")])
    [instance] = _instances(result)
    assert 5000 <= instance["output"]["slept"] < 5010
    assert 1 == len(_points(result, "sleep"))


def test_the_event_carries_the_payload_the_id_the_creation_time_and_the_configs_name(platform):
    result = _run(platform, [_create("event", id="e-1")])
    [instance] = _instances(result)
    output = instance["output"]
    assert "engine-flow" == output["name"] and "e-1" == output["id"] and {"mode": "event"} == output["payload"]
    assert output["at"].startswith("2026-01-01T00:00:00")


def test_a_crash_before_a_step_restarts_the_instance_which_runs_it(platform):
    schedule = {"faults": [{"invocation": "Workflow:FLOW/c-1#1", "ordinal": 0, "fault": "crash_before"}], "turns": []}
    result = _run(platform, [_create("caught", id="c-1")], schedule)
    assert ["Workflow:FLOW/c-1#1", "Workflow:FLOW/c-1#2"] == [e["invocation"] for e in _points(result, "step")]
    assert "complete" == _instances(result)[0]["status"]


def test_unmodelled_methods_and_bindings_are_unsupported(platform):
    batch = _run(platform, [_create("batch", id="b-1")])
    assert {"kind": "unsupported", "cause": "binding_not_modelled"} == {k: batch["end"][k] for k in ("kind", "cause")}
    assert "createBatch" in batch["end"]["detail"]
    remote = _run(platform, [{"method": "POST", "path": "/remote"}])
    assert "binding_not_modelled" == remote["end"]["cause"] and "REMOTE" in remote["end"]["detail"]



def test_a_binding_no_setup_step_names_is_unsupported_when_touched():
    with create_platform(_scenario([_create("plain")], setup=())) as unset_platform:
        unset = _run(unset_platform, [_create("plain")], setup=())
    assert "binding_without_setup" == unset["end"]["cause"] and 'workflow("FLOW")' in unset["end"]["detail"]


def test_the_rows_selector_reads_the_instances(platform):
    result = _run(platform, [_create("plain", id="p-1")])
    [snapshot] = [e for e in as_effects(result["effects"]) if e.kind == "snapshot" and e.op == "instances"]
    query = workflow_rows("FLOW")
    assert ("rows", "Workflow:FLOW", "instances") == (query["kind"], query["target"], query["table"])
    assert "complete" == snapshot.payload["rows"][0]["status"]


def _send(id, by="ada", at_ms=None, type="approve"):
    request = {"method": "POST", "path": f"/send/{id}/{type}", "body": {"by": by}}
    return request | ({"at_ms": at_ms} if at_ms is not None else {})


def test_a_wait_with_no_event_suspends_the_instance_until_the_event_wakes_it(platform):
    """The wait suspends (status waiting, the invocation ends there); the event a minute later
    wakes it as #2, which re-runs run() and gets the event; the step after it runs once."""
    result = _run(platform, [_create("wait", id="w-1"), {"method": "GET", "path": "/status/w-1"}, _send("w-1", at_ms=60_000)])
    responses = _responses(result)
    assert "waiting" == responses[1]["status"]
    assert {"sent": "approve"} == responses[2]
    [instance] = _instances(result)
    assert "complete" == instance["status"] and "ada" == instance["output"]["approvedBy"]
    assert 60_000 <= instance["output"]["waitedMs"] < 60_100
    assert ["Workflow:FLOW/w-1#1"] == [e["invocation"] for e in _points(result, "wait")]
    assert ["Workflow:FLOW/w-1#2"] == [e["invocation"] for e in _points(result, "event")]
    [persisted] = [e["payload"]["rows"] for e in result["effects"] if (e["kind"], e["op"]) == ("snapshot", "steps")]
    assert {"instance": "w-1", "step": "approval", "count": 1, "wait": True, "value": {"by": "ada"}} in persisted


def test_an_event_sent_before_the_wait_is_buffered_and_taken_at_once(platform):
    """The request sends the event right after creating the instance, before it runs: the wait
    takes it at once, so the instance never suspends (one invocation)."""
    request = _create("wait", id="w-2") | {}
    request["body"] = request["body"] | {"send": "approve"}
    result = _run(platform, [request])
    [instance] = _instances(result)
    assert "early" == instance["output"]["approvedBy"] and 0 <= instance["output"]["waitedMs"] < 100
    assert {"Workflow:FLOW/w-2#1"} == {e["invocation"] for e in _points(result, "event") + _points(result, "step")}


def test_a_wait_past_its_deadline_throws_a_timeout_the_code_catches_and_a_late_event_is_refused(platform):
    result = _run(platform, [_create("wait", id="w-4"), _send("w-4", at_ms=2 * 3_600_000)])
    [instance] = _instances(result)
    assert {"timedOut": "WorkflowTimeoutError"} == {"timedOut": instance["output"]["timedOut"]}
    assert 3_600_000 <= instance["output"]["waitedMs"] < 3_600_100, "the deadline is the wait's hour, in virtual time"
    assert 1 == len(_points(result, "wait_timeout"))
    assert {"refused": "Workflow instance w-4 is complete: it takes no more events"} == _responses(result)[-1]


def test_a_lost_send_event_leaves_the_instance_to_time_out(platform):
    """crash_before at send_event: the event never reached the instance, whose wait times out."""
    schedule = {"faults": [{"invocation": "req-2#1", "ordinal": 0, "fault": "crash_before"}], "turns": []}
    result = _run(platform, [_create("wait", id="w-5"), _send("w-5", at_ms=60_000)], schedule)
    assert "WorkflowTimeoutError" == _instances(result)[0]["output"]["timedOut"]


def test_in_a_concurrent_run_instances_interleave_at_their_steps():
    """Each step point is a turn: with two instances in flight, some order of turns runs a step of
    one between two of the other's, and every order ends both complete."""
    requests = [_create("steps", id="a-1"), _create("steps", id="b-1")]
    concurrent = _scenario(requests) | {"bounds": _scenario(requests)["bounds"] | {"maxConcurrentInvocations": 2}}
    interleaved = False
    with create_platform(concurrent) as concurrent_platform:
        for seed in ("w1", "w2", "w3", "w4", "w5", "w6"):
            result = replay_scenario(concurrent, concurrent_platform, NO_FAULTS, seed=seed)["result"]
            assert {"complete"} == {row["status"] for row in _instances(result)}, seed
            owners = [e["payload"]["args"]["instance"] for e in _points(result, "step")]
            interleaved |= any(owners[i] != owners[i + 1] and owners[i] == owners[i + 2] for i in range(len(owners) - 2))
    assert interleaved, "no order of turns ran one instance's step between two of the other's"
