"""Shared pieces of the AWS platform tests: a probe scenario and plan builders."""

import pytest

from eutaxy.aws import AwsPlatform, define_scenario, dynamodb_table, handler, sqs
from eutaxy.engine.bounds import resolve_bounds, with_bounds


def probe_scenario(bodies, *, max_receive_count=5, bounds=None, path="./handlers/probe.py"):
    return define_scenario(
        name="probe",
        handler=handler(path, "handler", timeout_ms=1000),
        drive=sqs("jobs", bodies, max_receive_count=max_receive_count, batch_size=1),  # one message per invocation
        setup=[
            dynamodb_table("items", {"id": "HASH"}, items=[{"id": "seeded", "n": 1.5, "nested": {"l": [1, "x", None]}}]),
            dynamodb_table("audit", {"id": "HASH"}),
        ],
        bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 2, **(bounds or {})},
    )


def plan(scenario, *, faults=(), prefix=(), max_faults=1, seed="probe", policy=None, max_short_batches=0):
    """A plan as plain data: replay ``faults`` (invocation, ordinal, kind) unless ``policy``.

    The scenario carries its bounds resolved, as every plan the engine makes does (``with_bounds``).
    """
    return {
        "protocol": 1,
        "scenario": with_bounds(scenario, resolve_bounds(scenario)),
        "seed": seed,
        "streams": {"globals": [7, 8, 9, 10], "turns": [1, 2, 3, 4]},
        "prefix": list(prefix),
        "policy": policy
        or {"kind": "replay", "faults": [{"invocation": i, "ordinal": o, "fault": f} for i, o, f in faults], "turns": [], "batches": []},
        "maxFaults": max_faults,
        "maxShortBatches": max_short_batches,
    }


def run_seen(platform, scenario, **plan_options):
    """Run ``scenario`` on an in-process ``platform`` (the plan: ``plan(scenario, **plan_options)``);
    returns (result data, what the handler saw: its module's ``SEEN``, filled by this run alone)."""
    seen = platform.handler.__globals__["SEEN"]
    seen.clear()
    result = platform.run(plan(scenario, **plan_options)).to_data()
    return result, list(seen)


@pytest.fixture(name="probe_scenario")
def probe_scenario_fixture():
    return probe_scenario


@pytest.fixture(name="plan")
def plan_fixture():
    return plan


@pytest.fixture(name="run_seen")
def run_seen_fixture():
    return run_seen


@pytest.fixture(scope="session")
def probe_platform():
    # In this process: the tests read what the handler saw in its module's globals.
    with AwsPlatform.start(probe_scenario([{"id": "a"}])) as platform:
        yield platform


@pytest.fixture
def run_probe(probe_platform):
    """Run the probe handler on ``bodies``; returns (result data, what the handler saw)."""

    def run(bodies, **kwargs):
        scenario_kwargs = {key: kwargs.pop(key) for key in ("max_receive_count", "bounds") if key in kwargs}
        return run_seen(probe_platform, probe_scenario(bodies, **scenario_kwargs), **kwargs)

    return run
