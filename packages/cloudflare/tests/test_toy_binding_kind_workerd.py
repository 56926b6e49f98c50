"""A binding kind is two record files and one registration: the toy counter service, end to end in workerd.

The kind is kinds/counter.py (its Python record: wrangler section, setup step, ladders,
no-setup rule, selectors) and kinds/counter.mjs (its runtime record), and nothing else: the
test registers the Python record, which names the runtime record, and drives a Worker
(kinds/worker/) that calls it. Each test checks one thing the kind gets without any other
file naming it: its setup step and reset, its effect points with the faults of the ladders
its record sends, its snapshot and selectors under a checked invariant, and UNSUPPORTED
when a counter no setup step sets is touched.
"""

import re
from pathlib import Path

import pytest

from eutaxy.cloudflare import bindings, create_platform, define_scenario, every_row, queue
from eutaxy.cloudflare.worker import prepare_worker
from eutaxy.core.effects import as_effects
from eutaxy.core.selectors import matches
from eutaxy.engine.check import check_scenario, replay_scenario
from kinds.counter import COUNTER, counter_op, counter_rows, counter_service

KINDS = Path(__file__).resolve().parent / "kinds"
FIXTURE = KINDS / "worker"
PACKAGE = Path(__file__).resolve().parents[1]
NO_FAULTS = {"faults": [], "turns": []}

pytestmark = pytest.mark.usefixtures("toolchain")


@pytest.fixture(scope="module", autouse=True)
def registered():
    """The toy kind is registered for this module's tests only."""
    bindings.register(COUNTER)
    yield
    bindings.unregister(COUNTER.name)


def _scenario(messages, setup, invariants=()):
    return define_scenario(
        name="counter",
        root=FIXTURE,
        source=FIXTURE / "counter.sim.py",
        worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
        setup=setup,
        drive=queue("ops", [{"body": body} for body in messages]),
        invariants=list(invariants),
        bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 1, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )


SEEDED = [counter_service("COUNTER", {"a": 5})]
INCREMENT_A = [{"do": "increment", "key": "a"}]


@pytest.fixture(scope="module")
def seeded(registered):
    with create_platform(_scenario(INCREMENT_A, SEEDED)) as platform:
        yield platform


def _run(platform, messages, schedule=NO_FAULTS, setup=SEEDED):
    outcome = replay_scenario(_scenario(messages, setup), platform, schedule, seed="counter")
    return outcome["result"]


def _counter(effects, kind="result"):
    return [(e["op"], e["payload"]) for e in effects if e["target"] == "Counter:COUNTER" and e["kind"] == kind]


def _counts(effects):
    [snapshot] = [e for e in effects if e["kind"] == "snapshot" and e["target"] == "Counter:COUNTER"]
    assert "counts" == snapshot["op"]
    return {row["key"]: row["count"] for row in snapshot["payload"]["rows"]}


def test_no_file_of_the_package_or_its_runtime_names_the_toy_kind():
    """The kind is its two record files: neither the package's source nor the runtime (its own tests aside) mentions it."""
    named = [
        path
        for folder in (PACKAGE / "src", PACKAGE / "runtime")
        for path in folder.rglob("*")
        if path.suffix in (".py", ".mjs", ".json") and not {"node_modules", "test", "fixtures"} & set(path.parts)
        and re.search(r"counter_service|Counter:|\bcounters\b", path.read_text(encoding="utf-8"))
    ]
    assert [] == named
    assert {"counter.py", "counter.mjs"} == {path.name for path in KINDS.iterdir() if path.is_file()}


def test_the_registered_kind_reads_its_section_and_checks_its_step():
    """The config's counters section becomes the kind's bindings, and its step travels in its load entry."""
    message = prepare_worker(_scenario(INCREMENT_A, SEEDED)).load_message()
    entry = message["worker"]["kinds"]["counter"]
    assert {"COUNTER": {"resource": "tally", "setup": SEEDED[0], "setupHint": 'counter_service("COUNTER", {...})', "settings": {}}} == entry["bindings"]
    assert {"increment": ["crash_before", "crash_after", "ambiguous", "error"], "get": ["crash_before", "crash_after", "error"]} == entry["policy"]["ladders"]
    assert ({}, str(KINDS / "counter.mjs")) == (entry["miniflare"], entry["module"])
    assert [] == message["worker"]["bindings"], "a registered kind's binding is no trap"


def test_a_run_resets_the_counter_from_its_step_records_each_call_and_snapshots_the_counts(seeded):
    """The seed is 5; one increment is one effect answering 6, and the run ends with a = 6, run after run."""
    for _ in range(2):
        result = _run(seeded, INCREMENT_A)
        assert {"kind": "completed"} == result["end"]
        assert [("increment", {"args": {"key": "a"}, "result": {"value": 6}})] == _counter(result["effects"])
        assert {"a": 6} == _counts(result["effects"])


@pytest.mark.parametrize(
    ("fault", "counts"),
    [
        ("crash_before", {"a": 6}),  # never reached the counter; the redelivery counts once
        ("crash_after", {"a": 7}),  # counted, then the invocation died; the redelivery counts again
        ("ambiguous", {"a": 7}),  # counted, the answer lost: the handler threw and the message was retried
        ("error", {"a": 6}),  # refused before counting; the retry counts once
    ],
)
def test_each_fault_of_the_ladder_its_record_sends_has_its_outcome(seeded, fault, counts):
    """The increment's write ladder comes from the Python record; each fault is recorded and acts as documented."""
    schedule = {"faults": [{"invocation": "msg-1#1", "ordinal": 0, "fault": fault}], "turns": []}
    result = _run(seeded, INCREMENT_A, schedule)
    assert [("increment", fault)] == [(op, payload["fault"]) for op, payload in _counter(result["effects"], "fault")]
    assert counts == _counts(result["effects"])


def test_a_reads_options_are_the_read_ladder_its_record_sends(seeded):
    """get offers the read ladder, without ambiguous: a plan asking for ambiguous there gets no fault."""
    schedule = {"faults": [{"invocation": "msg-1#1", "ordinal": 0, "fault": "ambiguous"}], "turns": []}
    result = _run(seeded, [{"do": "get", "key": "a"}], schedule)
    [decision] = [d for d in result["decisions"] if d["kind"] == "fault" and d["target"] == "Counter:COUNTER"]
    assert (["none", "crash_before", "crash_after", "error"], 0) == (decision["options"], decision["chosen"])
    assert [("get", {"args": {"key": "a"}, "result": {"value": 5}})] == _counter(result["effects"])


def test_the_selector_and_the_state_query_find_a_double_count(seeded):
    """counter_op selects the increments; an invariant over counter_rows is VIOLATED by a crash after the increment."""
    result = _run(seeded, INCREMENT_A)
    assert 1 == sum(matches(counter_op("COUNTER", "increment"), effect) for effect in as_effects(result["effects"]))
    invariant = every_row("counted-once", counter_rows("COUNTER", [{"column": "key", "op": "eq", "value": "a"}]),
                          [{"column": "count", "op": "eq", "value": 6}])
    scenario = _scenario(INCREMENT_A, SEEDED, [invariant])
    verdict = check_scenario(scenario, seeded, seed="counter", max_runs=40, module_state_runs=0)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "counted-once" == verdict["violation"]["invariant"]
    assert 1 == len(verdict["schedule"]["faults"])
    assert any(sentence.startswith("Counter services (COUNTER) are a toy kind") for sentence in verdict["provenance"]["assumptions"])


def test_a_counter_no_setup_step_sets_is_unsupported_when_touched(registered):
    """Without counter_service the counter would carry its counts between runs: the run ends binding_without_setup."""
    with create_platform(_scenario(INCREMENT_A, [])) as platform:
        result = _run(platform, INCREMENT_A, setup=[])
    assert "unsupported" == result["end"]["kind"]
    assert "binding_without_setup" == result["end"]["cause"]
    assert 'Counter binding COUNTER was touched (.increment) but no setup step resets it; add counter_service("COUNTER", {...})' in result["end"]["detail"]
