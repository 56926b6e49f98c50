"""rpc(...): a WorkerEntrypoint's calls as the runtime reads them, the caller, bad input named.

The drive's runs are the runtime's tests (runtime/test/rpc.test.mjs) and the corpus case
rpc-deadline-double-credit; here the data it writes and what a verdict says of it.
"""

from __future__ import annotations

import json

import pytest

from eutaxy.cloudflare import define_scenario, rpc, rpc_response
from eutaxy.cloudflare.rpc import rpc_assumption
from eutaxy.cloudflare.worker import prepare_worker
from eutaxy.core.errors import UserError
from worker_project import scenario_in


def test_each_call_is_an_event_with_its_method_and_args_and_the_caller_has_no_retry_on():
    drive = rpc([{"method": "credit", "args": ["t-1", 5]}, {"method": "balance", "id": "b", "at_ms": 10}], entrypoint="Ledger",
                retries=2, delays_ms=[1000], deadline_ms=2000)
    assert {
        "kind": "rpc",
        "name": "rpc",
        "entrypoint": "Ledger",
        "events": [{"id": "call-1", "method": "credit", "args": ["t-1", 5]}, {"id": "b", "method": "balance", "args": [], "atMs": 10}],
        "caller": {"retries": 2, "delaysMs": [1000], "deadlineMs": 2000},
    } == drive


def test_the_default_export_is_called_when_no_entrypoint_is_named():
    drive = rpc([{"method": "hello"}])
    assert (None, {"retries": 0, "delaysMs": [], "deadlineMs": None}) == (drive["entrypoint"], drive["caller"])


@pytest.mark.parametrize(
    ("calls", "options", "words"),
    [
        ([], {}, "at least one call"),
        ({"method": "a"}, {}, "must be a list"),
        ([{"args": [1]}], {}, "method must name a method"),
        ([{"method": "constructor"}], {}, "method must name a method"),
        ([{"method": "a", "args": "x"}], {}, "args must be a list"),
        ([{"method": "a", "args": [2**60]}], {}, "args"),
        ([{"method": "a", "body": {}}], {}, "unknown fields body"),
        ([{"method": "a", "id": "x"}, {"method": "b", "id": "x"}], {}, "ids repeat"),
        ([{"method": "a", "id": "x#1"}], {}, "without '#'"),
        ([{"method": "a"}], {"retries": -1}, "rpc: retries"),
        ([{"method": "a"}], {"delays_ms": [-5]}, "rpc: delays_ms"),
        ([{"method": "a"}], {"deadline_ms": 1.5}, "rpc: deadline_ms"),
        ([{"method": "a"}], {"entrypoint": "not a name"}, "entrypoint must name an export"),
    ],
)
def test_bad_calls_and_callers_are_named(calls, options, words):
    with pytest.raises(UserError, match=words):
        rpc(calls, **options)


def test_a_hand_written_drive_is_rebuilt_through_rpc_or_refused(tmp_path):
    drive = {"kind": "rpc", "entrypoint": None, "events": [{"method": "hello"}], "caller": {"retries": 1, "delaysMs": [], "deadlineMs": None}}
    scenario = define_scenario(name="x", worker={"entry": "w.js"}, drive=drive, invariants=[], root=tmp_path)
    assert [{"id": "call-1", "method": "hello", "args": []}] == scenario["drive"]["events"]
    with pytest.raises(UserError, match="build the drive with rpc"):
        define_scenario(name="x", worker={"entry": "w.js"}, drive={"kind": "rpc", "events": [{"method": "a"}]}, invariants=[], root=tmp_path)
    without_entrypoint = {key: value for key, value in drive.items() if key != "entrypoint"}
    with pytest.raises(UserError, match="an rpc drive needs its entrypoint"):
        define_scenario(name="x", worker={"entry": "w.js"}, drive=without_entrypoint, invariants=[], root=tmp_path)
    with pytest.raises(UserError, match=r"an rpc drive needs its caller \{retries, delaysMs, deadlineMs\}"):
        define_scenario(name="x", worker={"entry": "w.js"}, drive={**drive, "caller": {"retries": 1}}, invariants=[], root=tmp_path)


def test_rpc_response_selects_a_methods_answers():
    assert {"target": "Rpc:credit", "op": "response"}.items() <= rpc_response("credit").items()
    named = rpc_response("credit", ok=False, entrypoint="Ledger")
    assert "Rpc:Ledger.credit" == named["target"] and {"result.ok": False} == named["where"]


def test_the_verdict_states_the_entrypoint_and_the_declared_caller():
    said = rpc_assumption(rpc([{"method": "credit"}], entrypoint="Ledger", retries=2, delays_ms=[1000], deadline_ms=2000))
    assert said.startswith("Inbound RPC: one invocation per call attempt, the export Ledger constructed anew for each;")
    assert "it resends a call up to 2 times after no answer or an exception, waiting 1000 ms" in said
    assert "it waits 2000 ms (virtual) for an answer" in said
    assert "it sends each call once" in rpc_assumption(rpc([{"method": "hello"}]))


def test_the_differential_runner_sends_one_call_per_attempt_and_refuses_virtual_time():
    """The raw loop's view of an rpc drive: each call alone, the caller's retries as the limit; delays,
    a deadline or at_ms need virtual time the raw side does not have."""
    from eutaxy.cloudflare.differential import raw_queue

    drive = rpc([{"method": "credit", "args": ["a", 1]}, {"method": "balance", "id": "b"}], entrypoint="Ledger", retries=2)
    queue = raw_queue({"drive": drive})
    assert (1, 2) == (queue.batch_size, queue.platform_limit)
    assert (("call-1", {"method": "credit", "args": ["a", 1]}), ("b", {"method": "balance", "args": []})) == queue.events
    for options in ({"delays_ms": [1000]}, {"deadline_ms": 500}):
        with pytest.raises(UserError, match="drop delays_ms and deadline_ms"):
            raw_queue({"drive": rpc([{"method": "a"}], **options)})
    with pytest.raises(UserError, match="carry at_ms"):
        raw_queue({"drive": rpc([{"method": "a", "at_ms": 5}])})


@pytest.mark.parametrize(("date", "said"), [("2026-01-01", False), ("2026-04-21", True)])
def test_the_rpc_drives_caller_is_taken_to_have_the_workers_error_serialization(tmp_path, date, said):
    """The rpc drive's caller has no config: with the Worker's enhanced_error_serialization on, the verdict
    says the caller is taken to have the Worker's and its answer records a thrown value's name and message only."""
    (tmp_path / "worker.js").write_text("export default {};\n")
    (tmp_path / "wrangler.jsonc").write_text(json.dumps({"name": "ledger", "main": "./worker.js", "compatibility_date": date}))
    spec = prepare_worker(scenario_in(tmp_path, setup=[], drive=rpc([{"method": "credit"}]), invariants=[]))
    sentences = [sentence for sentence in spec.assumptions if "enhanced_error_serialization" in sentence]
    assert ([True] if said else []) == ["the rpc drive's caller is taken to have wrangler.jsonc's" in sentence for sentence in sentences]
