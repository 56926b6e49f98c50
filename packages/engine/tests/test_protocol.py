"""The run protocol types: plain data in and out, exactly the contract's JSON, and the schema.

Every plan and result the toy platform saw while the engine checked scenarios (seeded,
exhaustive, replayed, shrunk) is validated against docs/protocol.schema.json, so the
schema describes what the engine really sends and what a runtime must answer.
"""

import json
import pathlib

import jsonschema
import pytest

from eutaxy.core.protocol import (
    PROTOCOL_VERSION,
    Decision,
    EndState,
    FirstPolicy,
    Platform,
    ProtocolError,
    ReplayPolicy,
    RunPlan,
    RunResult,
    SeededPolicy,
)
from eutaxy.core.schedule import FaultAt
from eutaxy.engine.check import check_scenario

from toyplatform import ToyPlatform, count_scenario, orders_scenario

SCHEMA_PATH = pathlib.Path(__file__).resolve().parents[3] / "docs" / "protocol.schema.json"

WORDS = {"globals": (1, 2, 3, 4), "turns": (5, 6, 7, 8)}


def _validator(definition: str) -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    schema.pop("oneOf")
    schema["$ref"] = f"#/$defs/{definition}"
    return jsonschema.Draft202012Validator(schema)


def test_version_is_one():
    """The protocol is versioned and both sides refuse any other version."""
    assert 1 == PROTOCOL_VERSION
    data = RunPlan(scenario={"drive": {"kind": "queue", "events": []}}, seed="s", streams=WORDS).to_data()
    with pytest.raises(ProtocolError):
        RunPlan.from_data({**data, "protocol": 2})


def test_plan_round_trips_the_contract_json():
    """A plan's data is the contract's JSON, field for field, and reads back equal."""
    plan = RunPlan(
        scenario={"name": "x", "drive": {"kind": "queue", "events": []}},
        seed="queue-duplicate-write",
        streams=WORDS,
        prefix=(0, 2, 0),
        policy=SeededPolicy(faults={3: 77}),
        max_faults=1,
    )
    data = plan.to_data()
    assert {
        "protocol": 1,
        "scenario": {"name": "x", "drive": {"kind": "queue", "events": []}},
        "seed": "queue-duplicate-write",
        "streams": {"globals": [1, 2, 3, 4], "turns": [5, 6, 7, 8]},
        "prefix": [0, 2, 0],
        "policy": {"kind": "seeded", "faults": {"3": 77}},
        "maxFaults": 1,
        "maxShortBatches": 0,
    } == data
    assert plan == RunPlan.from_data(json.loads(json.dumps(data)))


@pytest.mark.parametrize(
    "policy",
    [
        FirstPolicy(),
        SeededPolicy(faults={}),
        ReplayPolicy(faults=(FaultAt(invocation="msg-1#1", ordinal=0, fault="crash_after"),), turns=(1, 0)),
    ],
)
def test_each_policy_round_trips(policy):
    """Every policy reads back as itself through JSON."""
    plan = RunPlan(scenario={"drive": {"kind": "queue", "events": []}}, seed="s", streams=WORDS, policy=policy)
    assert plan == RunPlan.from_data(json.loads(json.dumps(plan.to_data())))
    _validator("plan").validate(plan.to_data())


def test_result_round_trips_the_contract_json():
    """A result with both decision kinds and an unsupported end reads back equal."""
    data = {
        "protocol": 1,
        "effects": [
            {"target": "D1:DB", "op": "run", "kind": "call", "payload": {"args": {}},
             "invocation": "msg-1#1", "ordinal": 0, "time": 1767225600000}
        ],
        "eligible": 4,
        "decisions": [
            {"kind": "fault", "invocation": "msg-1#1", "ordinal": 0, "target": "D1:DB",
             "options": ["none", "crash_before", "crash_after", "ambiguous", "error"], "chosen": 0},
            {"kind": "turn", "options": [{"kind": "effect", "invocation": "msg-1#1", "target": "D1:DB"},
                                         {"kind": "start", "event": "msg-2"}], "chosen": 1, "more": False},
        ],
        "end": {"kind": "unsupported", "cause": "binding_not_allowed", "detail": "KV binding CACHE was touched"},
    }
    result = RunResult.from_data(data)
    assert data == result.to_data()
    assert EndState(kind="unsupported", cause="binding_not_allowed", detail="KV binding CACHE was touched") == result.end
    _validator("result").validate(result.to_data())


def test_malformed_results_are_refused():
    """A chosen index outside the options, or more fault decisions than eligible points, is a protocol error."""
    base = {"protocol": 1, "effects": [], "eligible": 0, "decisions": [], "end": {"kind": "completed"}}
    fault = {"kind": "fault", "invocation": "msg-1#1", "ordinal": 0, "target": "T", "options": ["none", "error"], "chosen": 0}
    with pytest.raises(ProtocolError):
        RunResult.from_data({**base, "decisions": [fault]})
    with pytest.raises(ProtocolError):
        RunResult.from_data({**base, "eligible": 1, "decisions": [{**fault, "chosen": 2}]})
    with pytest.raises(ProtocolError):
        RunResult.from_data({**base, "end": {"kind": "crashed"}})
    with pytest.raises(ProtocolError):
        Decision.from_data({"kind": "fault", "invocation": "a#1", "ordinal": 0, "options": ["error"], "chosen": 0})


def test_the_toy_is_a_platform():
    """The reference platform satisfies the Platform protocol class."""
    assert isinstance(ToyPlatform(), Platform)


@pytest.mark.parametrize(
    "scenario, exhaustive",
    [
        (orders_scenario(), False),
        (orders_scenario(fixed=True), False),
        (orders_scenario(events=2, max_faults=1, concurrency=2), True),
        (count_scenario(events=2, effects=2, faults=1, kinds=2, targets="independent", more=True, checked=True), True),
    ],
)
def test_every_plan_and_result_the_engine_exchanges_fits_the_schema(scenario, exhaustive):
    """Plans (seeded, first, replay) and results (fault and turn decisions) validate against the schema."""
    platform = ToyPlatform()
    check_scenario(scenario, platform, max_runs=40, exhaustive=exhaustive)
    assert platform.plans and platform.results
    plans, results = _validator("plan"), _validator("result")
    kinds = set()
    for plan in platform.plans:
        plans.validate(json.loads(json.dumps(plan)))
        kinds.add(plan["policy"]["kind"])
    for result in platform.results:
        results.validate(json.loads(json.dumps(result)))
    assert kinds <= {"seeded", "replay", "first"}
    # Seeded checks send first plans too: enumerating what is left, and the shrinker's fault-free runs.
    assert ("first" if exhaustive else "seeded") in kinds


def test_the_schema_refuses_a_kind_by_name_in_a_seeded_plan():
    """The seeded policy carries kind draws (numbers), never kind names."""
    plan = RunPlan(scenario={"drive": {"kind": "queue", "events": []}}, seed="s", streams=WORDS).to_data()
    plan["policy"] = {"kind": "seeded", "faults": {"3": "crash_after"}}
    assert not _validator("plan").is_valid(plan)
