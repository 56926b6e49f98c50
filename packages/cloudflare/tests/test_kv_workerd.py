"""KV on real workerd: each operation one effect on Miniflare's namespace, its faults, reset, snapshot and invariants.

One host per setup: the ops Worker (kv/ops.ts) with a seeded namespace, and with none; each
test drives it with the messages it needs (one mode per message) and reads the effect log.
The tally pair (kv/tally.ts, kv/tally_fixed.ts) is the planted bug and its fix.
"""

from pathlib import Path

import pytest

from eutaxy.cloudflare import check, create_platform, kv_namespace, kv_write, queue
from eutaxy.core.selectors import matches
from eutaxy.core.effects import as_effects
from eutaxy.engine.check import replay_scenario
from worker_project import scenario_in

FIXTURE = Path(__file__).resolve().parent / "kv"
SEEDED = kv_namespace("KV", {"seeded": "s", "s2": {"value": {"a": 1}, "metadata": {"m": True}}})
NO_FAULTS = {"faults": [], "turns": []}

pytestmark = pytest.mark.usefixtures("toolchain")


def _scenario(modes, setup):
    return scenario_in(
        FIXTURE, "kv-ops",
        worker={"entry": "./ops.ts", "config": "./wrangler.jsonc"},
        setup=setup,
        drive=queue("ops", [{"body": {"do": mode}} for mode in modes]),
        bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )


@pytest.fixture(scope="module")
def seeded():
    with create_platform(_scenario(["all"], [SEEDED])) as platform:
        yield platform


@pytest.fixture(scope="module")
def unseeded():
    with create_platform(_scenario(["all"], [])) as platform:
        yield platform


def _run(platform, modes, schedule=NO_FAULTS, setup=(SEEDED,)):
    outcome = replay_scenario(_scenario(modes, list(setup)), platform, schedule, seed="kv")
    assert {"kind": "completed"} == outcome["result"]["end"]
    return outcome["result"]["effects"]


def _kv(effects, kind="result"):
    return [(e["op"], e["payload"]) for e in effects if e["target"] == "KV:KV" and e["kind"] == kind]


def _rows(effects):
    [snapshot] = [e for e in effects if e["kind"] == "snapshot" and e["target"] == "KV:KV"]
    assert "keys" == snapshot["op"]
    return {row["key"]: row for row in snapshot["payload"]["rows"]}


def test_each_operation_is_one_effect_with_its_result_as_plain_data(seeded):
    """get in every type and in bulk, getWithMetadata, put, delete and list are recorded with what they answered."""
    results = _kv(_run(seeded, ["all"]))
    assert [
        "put", "put", "get", "get", "get", "get", "put", "get", "getWithMetadata", "list", "list", "delete", "put", "put",
        "getWithMetadata",
    ] == [op for op, _ in results]
    payloads = [payload for _, payload in results]
    assert {"key": "a", "value": "1", "options": {"metadata": {"m": 1}}} == payloads[0]["args"]
    assert [{"ok": True, "value": v} for v in ("1", {"x": 2}, "1", "1")] == [p["result"] for p in payloads[2:6]]
    assert ["text", "json", "arrayBuffer", "stream"] == [p["args"]["type"] for p in payloads[2:6]]
    assert {"ok": True, "values": {"a": "1", "j": '{"x":2}', "zz": None}} == payloads[7]["result"]
    assert {"ok": True, "value": "1", "metadata": {"m": 1}} == payloads[8]["result"]
    assert [{"name": "a", "metadata": {"m": 1}}] == payloads[9]["result"]["keys"]
    assert payloads[9]["result"]["list_complete"] is False
    assert {"cursor": payloads[9]["result"]["cursor"]} == payloads[10]["args"]
    assert ["j", "s2", "seeded", "streamed"] == [key["name"] for key in payloads[10]["result"]["keys"]]
    assert {"key": "bytes", "value": {"$": "bytes", "v": "/wA="}, "options": {}} == payloads[12]["args"]
    assert {"stream": "read in the put"} == payloads[13]["args"]["value"]
    assert {"keys": ["j", "s2"], "type": "json"} == payloads[14]["args"]
    assert {"ok": True, "values": {"j": {"value": {"x": 2}, "metadata": None}, "s2": {"value": {"a": 1}, "metadata": {"m": True}}}} == payloads[14]["result"]


def test_the_snapshot_lists_every_key_with_value_metadata_and_expiration(seeded):
    """Rows {key, value, metadata, expiration}, in canonical order; the stream's text was handed back whole."""
    effects = _run(seeded, ["all"])
    rows = _rows(effects)
    assert {"bytes", "j", "piped", "s2", "seeded", "streamed"} == set(rows)
    assert "from a stream" == rows["piped"]["value"]
    assert {"key": "s2", "value": '{"a":1}', "metadata": {"m": True}, "expiration": None} == rows["s2"]
    assert {"$": "bytes", "v": "/wA="} == rows["bytes"]["value"]
    assert "1" == rows["streamed"]["value"]
    assert isinstance(rows["j"]["expiration"], int)


def test_every_run_starts_from_the_seed_and_a_namespace_without_a_step_starts_empty(seeded, unseeded):
    """Keys a run wrote are gone in the next; a namespace no step names holds nothing at the start of a run."""
    _run(seeded, ["all"])
    assert {"seeded", "s2", "listed"} == set(_rows(_run(seeded, ["list"])))
    assert '["s2","seeded"]' == _rows(_run(seeded, ["list"]))["listed"]["value"]
    _run(unseeded, ["all"], setup=())
    rows = _rows(_run(unseeded, ["list"], setup=()))
    assert {"listed"} == set(rows) and "[]" == rows["listed"]["value"]


def test_expiration_is_virtual_time(seeded):
    """A TTL is checked and counted on the virtual clock: 61 virtual seconds later the key is gone, a later one stays."""
    effects = _run(seeded, ["expire", "bad-expiration"])
    results = _kv(effects)
    put_t, put_later = results[0][1], results[1][1]
    assert put_t["result"]["expiration"] + 3540 == put_later["result"]["expiration"]
    assert ("get", {"ok": True, "value": None}) == (results[2][0], results[2][1]["result"])
    rows = _rows(effects)
    assert "t" not in rows and rows["later"]["expiration"] == put_later["result"]["expiration"]
    assert "null" == rows["seen"]["value"]
    refused = [e for e in as_effects(effects) if e.target == "KV:KV" and e.kind == "result" and e.payload["args"].get("key") == "t"][-1]
    assert "Expiration TTL must be at least 60" in refused.payload["result"]["error"]["message"]
    assert not matches(kv_write("KV"), refused)
    assert rows["caught"]["value"].endswith("Expiration TTL must be at least 60.")


@pytest.mark.parametrize(
    ("fault", "stored", "caught"),
    [("crash_before", False, False), ("error", False, True), ("ambiguous", True, True), ("crash_after", True, False)],
)
def test_a_put_fault_means_what_the_write_ladder_says(seeded, fault, stored, caught):
    """crash_before and error: never stored; ambiguous and crash_after: stored; error and ambiguous throw to the Worker."""
    effects = _run(seeded, ["put"], {"faults": [{"invocation": "msg-1#1", "ordinal": 0, "fault": fault}], "turns": []})
    rows = _rows(effects)
    assert stored == ("k" in rows)
    assert caught == ("caught" in rows)
    if caught:
        assert "eutaxy: " + ("ambiguous outcome injected" if fault == "ambiguous" else "error injected") in rows["caught"]["value"]


@pytest.mark.parametrize(("fault", "after"), [("crash_before", False), ("crash_after", False), ("error", True)])
def test_a_get_takes_the_read_ladder(seeded, fault, after):
    """A read takes crash_before, crash_after and error (never ambiguous); only error lets the Worker go on."""
    effects = _run(seeded, ["get"], {"faults": [{"invocation": "msg-1#1", "ordinal": 0, "fault": fault}], "turns": []})
    [call] = [e for e in effects if e["target"] == "KV:KV" and e["op"] == "get" and e["kind"] == "call"]
    assert 0 == call["ordinal"]
    assert after == ("caught" in _rows(effects))
    assert "got" not in _rows(effects)
    assert (fault == "crash_after") == any(op == "get" for op, _ in _kv(effects))


def test_a_lost_count_is_found_and_the_single_put_fix_is_bounded():
    """The tally that marks and counts in two keys loses a count under one crash; one put of both holds."""
    buggy = check(FIXTURE / "tally.sim.py", max_runs=40, budget_ms=600_000)
    assert "violated" == buggy["kind"]
    assert "both-messages-counted" == buggy["violation"]["invariant"]
    [fault] = buggy["schedule"]["faults"]
    assert fault["fault"] in ("crash_before", "crash_after", "error")
    fixed = check(FIXTURE / "tally_fixed.sim.py", max_runs=40, budget_ms=600_000)
    assert "bounded" == fixed["kind"]
    assert any("strongly consistent" in sentence for sentence in fixed["provenance"]["assumptions"])
