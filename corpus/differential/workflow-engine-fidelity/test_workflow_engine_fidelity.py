"""Fidelity gate for the Workflows engine model (issue 35 item 5): fault-free, the model ends as Miniflare's local engine does.

Workflows are the one binding Eutaxy does not run on the real local implementation: its engine
is a model (runtime/bindings/workflow.mjs), since the local engine cannot be restarted between a
step committing and its result being persisted. This gate holds the model to the local engine
where both can run: the case's Worker (worker.js) creates one instance per mode, fault-free, once
through Eutaxy (a replay with no faults) and once on Miniflare's local Workflows engine
(local_engine.mjs, the pinned toolchain's Miniflare, on its real clock). Each instance's status,
output and error, and the step results each engine persisted, must be the same; a divergence
fails the test, naming the instance. A second test plants a divergence (the model's rows
changed as a model that forgot a step's persisted result would end) and requires the comparison
to report it.
"""

import copy
import json
import os
import subprocess
import tempfile
from pathlib import Path

from eutaxy.cloudflare import create_platform
from eutaxy.cloudflare.host import find_node
from eutaxy.core.canonical import to_json
from eutaxy.engine.check import replay_scenario
from eutaxy.engine.scenario_file import import_scenario

HERE = Path(__file__).resolve().parent
SCENARIO = HERE / "workflow-engine-fidelity.sim.py"
NO_FAULTS = {"faults": [], "turns": []}
#: The local engine runs on the real clock (retries 10 ms apart, a 20 ms sleep): generous for a loaded machine.
LOCAL_TIMEOUT_S = 240


def _instances():
    """The instances the scenario creates, each with the event it is sent (the local engine's runner's input)."""
    scenario = import_scenario(SCENARIO)
    instances = {}
    for event in scenario["drive"]["events"]:
        if event["path"] == "/create":
            instances[event["body"]["id"]] = dict(event["body"])
        else:
            instances[event["path"].removeprefix("/send/")]["event"] = event["body"]
    return list(instances.values())


def model_ending():
    """Each instance as the model ends it: ``{id: {status, output, error, steps}}``, steps the persisted results."""
    scenario = import_scenario(SCENARIO)
    with create_platform(scenario) as platform:
        result = replay_scenario(scenario, platform, NO_FAULTS, seed="workflow-engine-fidelity")["result"]
    assert {"kind": "completed"} == result["end"]
    snapshots = {e["op"]: e["payload"]["rows"] for e in result["effects"] if e["kind"] == "snapshot" and e["target"] == "Workflow:FLOW"}
    ending = {}
    for row in snapshots["instances"]:
        # A wait's persisted event is its payload, as the local engine lists it among the step outputs.
        steps = [step["value"] for step in snapshots["steps"] if step["instance"] == row["id"] and "value" in step]
        ending[row["id"]] = {"status": row["status"], "output": row.get("output"), "error": row.get("error"), "steps": steps}
    return ending


def local_ending():
    """Each instance as Miniflare's local Workflows engine ends it, in the same shape."""
    node, node_modules = find_node()
    completed = subprocess.run(
        [str(node), str(HERE / "local_engine.mjs"), str(HERE / "worker.js"), json.dumps(_instances())],
        # workerd refuses a storage path that climbs out of its starting folder with "..", as a
        # path relative to a deeper folder (Bazel's test folder) would: start it at the root.
        env={"EUTAXY_NODE_MODULES": str(node_modules), "PATH": "/usr/bin:/bin",
             "TMPDIR": os.environ.get("TEST_TMPDIR") or tempfile.gettempdir()},
        cwd="/",
        capture_output=True, text=True, timeout=LOCAL_TIMEOUT_S, check=False,
    )
    assert 0 == completed.returncode, completed.stderr[-4000:]
    ended = json.loads(completed.stdout.strip().splitlines()[-1])
    return {one["id"]: {key: one[key] for key in ("status", "output", "error", "steps")} for one in ended}


def differences(model, local):
    """What differs, one sentence per instance and field (step results compared as sets of canonical JSON)."""
    found = []
    for instance in sorted(set(model) | set(local)):
        if instance not in model or instance not in local:
            found.append(f"{instance}: only {'the model' if instance in model else 'the local engine'} has it")
            continue
        for field in ("status", "output", "error"):
            if to_json(model[instance][field]) != to_json(local[instance][field]):
                found.append(f"{instance} {field}: model {to_json(model[instance][field])}, local engine {to_json(local[instance][field])}")
        ours, theirs = sorted(map(to_json, model[instance]["steps"])), sorted(map(to_json, local[instance]["steps"]))
        if ours != theirs:
            found.append(f"{instance} persisted steps: model {ours}, local engine {theirs}")
    return found


def test_the_model_ends_as_the_local_engine_does_on_fault_free_runs():
    model, local = model_ending(), local_ending()
    assert [] == differences(model, local)
    # The case exercises what it says, on the local engine's side.
    assert {"s-1": "complete", "f-1": "complete", "z-1": "complete", "x-1": "errored", "c-1": "complete", "t-1": "errored", "w-1": "complete"} == {
        instance: ending["status"] for instance, ending in local.items()
    }
    assert {"attempt": 2} == local["f-1"]["output"]["value"], "the flaky step was retried"
    assert 4 == len(local["s-1"]["steps"]), "a second step of one name is persisted under its count"
    assert {"by": "ada"} in local["w-1"]["steps"], "the wait's event is persisted"


def test_a_planted_divergence_is_reported():
    """As a model that forgot the second "sum" step's result (its name and count) and ended a spent
    step's instance complete would: each difference is reported, naming the instance and field."""
    local = {
        "s-1": {"status": "complete", "output": {"total": 12}, "error": None, "steps": [{"total": 6}, {"total": 12}]},
        "x-1": {"status": "errored", "output": None, "error": {"name": "Error", "message": "still failing"}, "steps": [1]},
    }
    planted = copy.deepcopy(local)
    planted["s-1"]["steps"] = [{"total": 6}]
    planted["x-1"]["status"] = "complete"
    assert [] == differences(local, copy.deepcopy(local))
    assert [
        """s-1 persisted steps: model ['{"total":6}'], local engine ['{"total":12}', '{"total":6}']""",
        'x-1 status: model "complete", local engine "errored"',
    ] == differences(planted, local)
