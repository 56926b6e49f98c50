"""R2: the ``r2_bucket`` setup step, the load message and checks on a real Miniflare bucket.

The runtime's own tests (runtime/test/r2.test.mjs) go method by method and fault by fault;
these check what Python adds (the step's shape, the config's buckets in the load message,
the selectors) and that a check over R2 repeats byte for byte, the stand-ins included.
"""

import json
from pathlib import Path

import pytest

from eutaxy.cloudflare import (
    at_most_once_per_key,
    create_platform,
    define_scenario,
    every_row,
    queue,
    r2_bucket,
    r2_op,
    r2_rows,
)
from eutaxy.cloudflare.worker import prepare_worker
from eutaxy.core.effects import as_effects
from eutaxy.core.errors import UserError
from eutaxy.core.selectors import matches
from eutaxy.engine.check import check_scenario, replay_scenario
from workerd_support import fault_free, results_at, running

FIXTURE = Path(__file__).resolve().parent / "r2"


def _scenario(setup=None, events=None, invariants=None, bounds=None):
    return define_scenario(
        name="r2-uploads",
        root=FIXTURE,
        source=FIXTURE / "r2-uploads.sim.py",
        worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
        setup=setup if setup is not None else [r2_bucket("BUCKET", {"scratch": "x", "uploads/old": b"\x00\xff"})],
        drive=queue("uploads", events or [{"body": {"id": "u-1", "text": "one"}}, {"body": {"id": "u-2", "text": "two"}}]),
        invariants=invariants
        or [
            at_most_once_per_key("upload-stored-once", r2_op("BUCKET", "put"), "args.key"),
            every_row(
                "uploads-have-an-id",
                r2_rows("BUCKET", [{"column": "key", "op": "neq", "value": "scratch"}]),
                [{"column": "size", "op": "gte", "value": 0}],
            ),
        ],
        bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 1, "maxConcurrentInvocations": 1, "budgetMs": 120_000, **(bounds or {})},
    )


def test_r2_bucket_writes_text_and_bytes_as_plain_json():
    step = r2_bucket("B", {"a": "hi", "b": b"\x00\x01", "c": {"body": "t", "httpMetadata": {"contentType": "text/plain"}, "customMetadata": {"k": "v"}}})
    assert {
        "kind": "r2_bucket",
        "binding": "B",
        "objects": {
            "a": {"body": {"text": "hi"}, "httpMetadata": {}, "customMetadata": {}},
            "b": {"body": {"base64": "AAE="}, "httpMetadata": {}, "customMetadata": {}},
            "c": {"body": {"text": "t"}, "httpMetadata": {"contentType": "text/plain"}, "customMetadata": {"k": "v"}},
        },
    } == step
    assert {} == r2_bucket("B")["objects"]


@pytest.mark.parametrize(
    ("objects", "words"),
    [
        ({"a": 1}, "must be text, bytes or"),
        ({"a": {"body": "x", "size": 1}}, "unknown fields size"),
        ({"a": {"httpMetadata": {}}}, "body is missing"),
        ({"a": {"body": "x", "httpMetadata": {"etag": "1"}}}, "httpMetadata must map some of"),
        ({"a": {"body": "x", "customMetadata": {"k": 1}}}, "customMetadata must map strings to strings"),
        ({"": "x"}, "every key must be a non-empty string"),
    ],
)
def test_r2_bucket_refuses_what_r2_cannot_hold(objects, words):
    with pytest.raises(UserError, match=words):
        r2_bucket("B", objects)


def test_the_load_message_carries_the_buckets_and_r2_is_no_longer_a_trap():
    load = prepare_worker(_scenario()).load_message()
    r2 = load["worker"]["kinds"]["r2"]
    assert {"BUCKET": "uploads", "ARCHIVE": "archive"} == {name: binding["resource"] for name, binding in r2["bindings"].items()}
    assert [] == load["worker"]["bindings"]
    assert "r2_bucket" == r2["bindings"]["BUCKET"]["setup"]["kind"]
    assert "unsupported" == r2["withoutSetup"]
    assert [] == load["setup"], "a registered kind's steps travel in its kinds entry"


def test_a_setup_step_or_an_invariant_naming_a_bucket_the_worker_lacks_or_never_seeds_is_refused():
    with pytest.raises(UserError, match="r2_bucket names R2 binding 'BUCKETS'.*did you mean 'BUCKET'"):
        prepare_worker(_scenario(setup=[r2_bucket("BUCKETS")]))
    with pytest.raises(UserError, match="2 r2_bucket steps"):
        prepare_worker(_scenario(setup=[r2_bucket("BUCKET"), r2_bucket("BUCKET")]))
    unseeded = [at_most_once_per_key("x", r2_op("ARCHIVE", "put"), "args.key")]
    with pytest.raises(UserError, match=r"names R2:ARCHIVE, but no setup step resets that bucket.*r2_bucket\(\"ARCHIVE\""):
        prepare_worker(_scenario(invariants=unseeded))


@pytest.fixture(scope="module")
def uploads(toolchain):
    yield from running(_scenario())


def test_r2_op_selects_what_the_record_records_and_r2_rows_reads_the_bucket(uploads):
    scenario, platform = uploads
    result = fault_free(scenario, platform, "r2")
    effects = results_at(result, "R2:BUCKET")
    assert ["put", "head", "get", "list", "delete"] * 2 == [e.op for e in effects]
    assert [True] * 10 == [matches(r2_op("BUCKET"), e) for e in effects]
    assert [e.op == "put" for e in effects] == [matches(r2_op("BUCKET", "put"), e) for e in effects]
    snapshot = next(e for e in as_effects(result["effects"]) if e.kind == "snapshot" and e.target == "R2:BUCKET")
    assert "objects" == snapshot.op
    rows = {row["key"]: row for row in snapshot.payload["rows"]}
    assert ["uploads/old", "uploads/u-1", "uploads/u-2"] == sorted(rows)
    expected = {"key": "uploads/u-1", "size": 3, "etag": rows["uploads/u-1"]["etag"], "httpMetadata": {}, "customMetadata": {"id": "u-1"}}
    assert {**expected, "text": "one"} == rows["uploads/u-1"]
    assert None is rows["uploads/old"]["text"]


def test_two_checks_repeat_byte_for_byte_stand_ins_included(uploads):
    scenario, platform = uploads
    schedule = {"faults": [{"invocation": "u-1#1", "ordinal": 0, "fault": "ambiguous"}], "turns": []}
    first = replay_scenario(scenario, platform, schedule, seed="r2")
    second = replay_scenario(scenario, platform, schedule, seed="r2")
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    puts = [e for e in as_effects(first["result"]["effects"]) if e.kind == "result" and e.op == "put"]
    versions = [int(e.payload["result"]["version"], 16) for e in puts]
    assert 1 == versions[0] and versions == sorted(versions) and 32 == len(puts[0].payload["result"]["version"])
    verdicts = [check_scenario(scenario, platform, seed="r2", max_runs=12, module_state_runs=2) for _ in range(2)]
    assert "violated" == verdicts[0]["kind"], verdicts[0]
    assert json.dumps(verdicts[0], sort_keys=True) == json.dumps(verdicts[1], sort_keys=True)


def test_touching_a_bucket_without_setup_is_unsupported(uploads):
    _, platform = uploads
    scenario = _scenario(events=[{"body": {"id": "u-1", "text": "one", "archive": True}}])
    with create_platform(scenario) as archive_platform:
        verdict = check_scenario(scenario, archive_platform, max_runs=1, module_state_runs=0)
    assert "unsupported" == verdict["kind"]
    assert "binding_without_setup" == verdict["cause"]["kind"]
    assert "R2 binding ARCHIVE was touched (.head) but no setup step resets it" in verdict["cause"]["detail"]


def test_a_seed_object_r2_refuses_is_the_scenarios_error_naming_it(uploads):
    """A key longer than R2's 1024 bytes: exit 2 naming the step and the object, not an error of Eutaxy's."""
    scenario = _scenario(setup=[r2_bucket("BUCKET", {"k" * 1100: "x"})])
    with create_platform(scenario) as platform, pytest.raises(UserError) as raised:
        replay_scenario(scenario, platform, {"faults": [], "turns": []}, seed="r2")
    assert 'setup r2_bucket("BUCKET"): object "' + "k" * 77 + '..." cannot be stored' in str(raised.value)
    assert "BUCKET" == raised.value.near


def test_a_seed_object_is_what_the_worker_reads_and_survives_to_the_snapshot(uploads):
    scenario, platform = uploads
    result = replay_scenario(scenario, platform, {"faults": [], "turns": []}, seed="r2")["result"]
    listed = [e["payload"]["result"]["keys"] for e in result["effects"] if e["kind"] == "result" and e["op"] == "list"]
    assert listed and all("uploads/old" in keys for keys in listed), listed
    [snapshot] = [e for e in result["effects"] if e["kind"] == "snapshot" and e["target"] == "R2:BUCKET"]
    # The seeded uploads/old is still there; the seeded scratch is gone because the Worker deleted it.
    keys = {row["key"] for row in snapshot["payload"]["rows"]}
    assert "uploads/old" in keys and "scratch" not in keys
