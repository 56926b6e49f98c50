"""The Workflows fidelity case: each instance's mode is one engine rule (steps by name and count,
a retried step, a sleep, spent retries, a caught step error, run() throwing, a wait for an event
sent to it), created through the Worker's own fetch(). test_workflow_engine_fidelity.py runs it fault-free on Eutaxy's model of the
engine and on Miniflare's local engine, and requires the same statuses, outputs, errors and
persisted step results.
"""

from eutaxy.cloudflare import define_scenario, every_row, http, workflow, workflow_rows

INSTANCES = [
    {"id": "s-1", "params": {"mode": "steps", "items": [1, 2, 3]}},
    {"id": "f-1", "params": {"mode": "flaky"}},
    {"id": "z-1", "params": {"mode": "sleep"}},
    {"id": "x-1", "params": {"mode": "spent"}},
    {"id": "c-1", "params": {"mode": "caught"}},
    {"id": "t-1", "params": {"mode": "throws"}},
    {"id": "w-1", "params": {"mode": "wait"}, "event": {"type": "approve", "payload": {"by": "ada"}}},
]


def _requests(instance):
    create = {"method": "POST", "path": "/create", "body": {"id": instance["id"], "params": instance["params"]}}
    event = instance.get("event")
    return [create] + ([{"method": "POST", "path": f"/send/{instance['id']}", "body": event}] if event else [])



scenario = define_scenario(
    name="workflow-engine-fidelity",
    worker={"entry": "./worker.js", "config": "./wrangler.jsonc"},
    setup=[workflow("FLOW")],
    drive=http([request for instance in INSTANCES for request in _requests(instance)]),
    invariants=[
        every_row("instances-end", workflow_rows("FLOW"), [{"column": "status", "op": "in", "value": ["complete", "errored"]}]),
    ],
    bounds={"maxFaultsPerRun": 0, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
)
