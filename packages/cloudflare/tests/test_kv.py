"""KV's scenario helpers without workerd: the setup step, the selectors, what the load message and assumptions say."""

from pathlib import Path

import pytest

from eutaxy.cloudflare import every_row, kv_key, kv_namespace, kv_read, kv_rows, kv_write, queue
from eutaxy.cloudflare.worker import prepare_worker
from eutaxy.core.effects import as_effects
from eutaxy.core.errors import UserError
from eutaxy.core.selectors import matches

import worker_project
from worker_project import write_project

CONFIG = """{
  "name": "kv",
  "main": "./worker.ts",
  "compatibility_date": "2026-01-01",
  "queues": {"consumers": [{"queue": "jobs"}]},
  "kv_namespaces": [{"binding": "CACHE", "id": "cache-id"}, {"binding": "FLAGS"}],
}"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_project(tmp_path, CONFIG)


def scenario_in(project: Path, **overrides):
    fields = {"worker": {"config": "./wrangler.jsonc"}, "setup": [kv_namespace("CACHE", {"a": "1"})], "drive": queue("jobs", [{"body": 1}])}
    return worker_project.scenario_in(project, **{**fields, **overrides})


def test_kv_namespace_writes_each_entry_as_the_worker_would_put_it():
    """A string is stored as it is, other JSON data as its JSON text; the long form carries metadata."""
    step = kv_namespace("CACHE", {"s": "text", "n": 5, "o": {"x": [1, 2]}, "m": {"value": "v", "metadata": {"tag": 1}}})
    assert {
        "kind": "kv_namespace",
        "binding": "CACHE",
        "entries": [
            {"key": "s", "value": "text", "metadata": None},
            {"key": "n", "value": "5", "metadata": None},
            {"key": "o", "value": '{"x":[1,2]}', "metadata": None},
            {"key": "m", "value": "v", "metadata": {"tag": 1}},
        ],
    } == step
    assert [] == kv_namespace("CACHE")["entries"]


@pytest.mark.parametrize(
    ("binding", "entries", "problem"),
    [
        ("", {}, "binding must be a binding name"),
        ("CACHE", {"": "x"}, "every key must be a non-empty string"),
        ("CACHE", {"k": {1, 2}}, "key 'k' must be a string or JSON data"),
        ("CACHE", {"k": {"value": "v", "metadata": float("nan")}}, "key 'k''s metadata must be a string or JSON data"),
        ("CACHE", ["k"], "entries\\[0\\] must be"),
        ("CACHE", "k=v", "entries must be a dict"),
    ],
)
def test_a_bad_kv_namespace_step_is_a_user_error(binding, entries, problem):
    """A step that does not describe keys and values says which part is wrong."""
    with pytest.raises(UserError, match=problem):
        kv_namespace(binding, entries)


def test_every_declared_namespace_is_in_the_load_message_and_none_is_a_trap(project):
    """Each namespace is listed with its id (the binding when it has none); only the stepped one has entries."""
    message = prepare_worker(scenario_in(project)).load_message()
    kv = message["worker"]["kinds"]["kv"]
    assert {"CACHE": "cache-id", "FLAGS": "FLAGS"} == {name: binding["resource"] for name, binding in kv["bindings"].items()}
    assert [] == message["worker"]["bindings"]
    assert {"kind": "kv_namespace", "binding": "CACHE", "entries": [{"key": "a", "value": "1", "metadata": None}]} == kv["bindings"]["CACHE"]["setup"]
    assert None is kv["bindings"]["FLAGS"]["setup"]
    assert ("empty", {"kvNamespaces": {"CACHE": "cache-id", "FLAGS": "FLAGS"}}) == (kv["withoutSetup"], kv["miniflare"])


def test_the_consistency_assumption_is_stated_only_when_the_worker_has_kv(project):
    """A Worker with a KV namespace is checked on strongly consistent reads, and its verdicts say so; one without does not claim it."""
    assumptions = prepare_worker(scenario_in(project)).assumptions
    stated = [sentence for sentence in assumptions if "strongly consistent" in sentence]
    assert 1 == len(stated)
    assert "KV (CACHE, FLAGS)" in stated[0] and "eventually consistent" in stated[0] and "no stale-read fault" in stated[0]
    assert any("virtual time" in sentence and "expirationTtl" in sentence for sentence in assumptions)
    (project / "wrangler.jsonc").write_text(CONFIG.replace('"kv_namespaces"', '"_kv"'))
    assert not any("KV" in sentence for sentence in prepare_worker(scenario_in(project, setup=[])).assumptions)


def test_an_invariant_over_a_namespace_the_worker_lacks_is_refused(project):
    """kv_rows of an undeclared binding would hold vacuously, so it is a user error naming the nearest."""
    invariant = every_row("x", kv_rows("CACHES"), [{"column": "value", "op": "notNull"}])
    with pytest.raises(UserError, match="KV:CACHES, which the Worker does not have; did you mean 'CACHE'"):
        prepare_worker(scenario_in(project, invariants=[invariant]))


def _effect(op, args, result):
    return as_effects([{"target": "KV:CACHE", "op": op, "kind": "result", "payload": {"args": args, "result": result},
                        "invocation": "msg-1#1", "ordinal": 0, "time": 0}])[0]


def test_kv_selectors_pick_completed_writes_and_reads_by_op():
    """kv_write selects put and delete that completed, kv_read get, getWithMetadata and list; a refused write is neither."""
    put = _effect("put", {"key": "k", "value": "v", "options": {}}, {"ok": True, "expiration": None})
    refused = _effect("put", {"key": "k", "value": "v", "options": {"expirationTtl": 1}}, {"error": {"name": "Error", "message": "400"}})
    deleted = _effect("delete", {"key": "k"}, {"ok": True})
    got = _effect("get", {"key": "k", "type": "text"}, {"ok": True, "value": "v"})
    listed = _effect("list", {}, {"ok": True, "keys": [], "list_complete": True, "cursor": None})
    assert [True, False, True, False, False] == [matches(kv_write("CACHE"), e) for e in (put, refused, deleted, got, listed)]
    assert [False, False, False, True, True] == [matches(kv_read("CACHE"), e) for e in (put, refused, deleted, got, listed)]
    assert [False, True] == [matches(kv_write("CACHE", "delete"), e) for e in (put, deleted)]
    assert "args.key" == kv_key()
    assert {"kind": "rows", "target": "KV:CACHE", "table": "keys", "where": []} == kv_rows("CACHE")
