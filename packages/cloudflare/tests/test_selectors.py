"""The Workers selectors: plain data over D1, queue, fetch, http, R2 and Workflow targets."""

from __future__ import annotations

from eutaxy.core.effects import Effect
from eutaxy.core.selectors import matches

from eutaxy.cloudflare import selectors as sel


def _effect(target="D1:DB", op="run", kind="result", payload=None):
    return Effect(target, op, kind, payload if payload is not None else {}, "msg-1#1", 0, 0)


def test_helpers_build_plain_data():
    """The helpers return exactly the data a user could write by hand."""
    writes = {"statement": "write", "result.changes": {"gt": 0}}
    assert {"target": "D1:DB", "op": None, "kind": "result", "where": writes} == sel.d1_write("DB")
    assert {"target": "D1:DB", "op": "run", "kind": "result", "where": writes} == sel.d1_write("DB", "run")
    assert {"target": "D1:DB", "op": None, "kind": "result", "where": {"statement": "read"}} == sel.d1_read("DB")
    assert {"target": "Queue:payments", "op": "ack", "kind": "result", "where": {"result.effective": True}} == sel.queue_ack("payments")
    assert {"target": "Fetch:api", "op": "POST", "kind": "result", "where": {"result.effective": True}} == sel.fetch_call("api", "POST")
    ok = sel.fetch_call("api", ok=True)
    assert {"result.effective": True, "result.status": {"gte": 200, "lt": 300}} == ok["where"]
    answered = lambda status: _effect("Fetch:api", "POST", payload={"result": {"status": status, "effective": True}})  # noqa: E731 - a one-line stand-in, read where it is used
    assert [True, True, False, False] == [matches(ok, answered(s)) for s in (200, 204, 503, 302)]
    assert [False, True] == [matches(sel.fetch_call("api", ok=False), answered(s)) for s in (201, 503)]
    assert {"target": "Http:/refunds", "op": "response", "kind": "result", "where": {"result.ok": True}} == sel.http_response("/refunds", ok=True)
    assert {"target": "Http:/refunds", "op": "response", "kind": "result"} == sel.http_response("/refunds")
    assert "args.params.1" == sel.d1_param(1)
    assert {"kind": "rows", "target": "D1:DB", "table": "payments", "where": [{"column": "x", "op": "notNull"}]} == sel.d1_rows(
        "DB", "payments", [{"column": "x", "op": "notNull"}]
    )


def test_r2_put_that_stored_nothing_is_not_selected():
    """r2_op keeps completed operations, but a put only when it stored an object."""
    assert matches(sel.r2_op("B"), _effect("R2:B", "get", payload={"result": {"key": "k"}}))
    assert matches(sel.r2_op("B", "put"), _effect("R2:B", "put", payload={"result": {"stored": True}}))
    assert not matches(sel.r2_op("B"), _effect("R2:B", "put", payload={"result": {"stored": False}}))


def test_d1_write_selects_statements_that_changed_a_row():
    """d1_write keeps write statements that changed a row, by any method; nothing else."""
    writes = _effect(payload={"result": {"changes": 2}, "args": {"params": ["o-1"]}, "statement": "write"})
    assert matches(sel.d1_write("DB"), writes)
    assert not matches(sel.d1_write("DB"), _effect(payload={"result": {"changes": 0}, "statement": "write"}))
    assert not matches(sel.d1_write("DB"), _effect(payload={"result": {"changes": 2}, "statement": "read"}))
    assert not matches(sel.d1_write("DB"), _effect(payload={}))
    assert not matches(sel.d1_write("DB", "run"), _effect(op="batch", payload={"result": {"changes": 1}, "statement": "write"}))


def test_core_names_no_workers_selector():
    """The Workers helpers live here only: core keeps the generic machinery (issue 13)."""
    import eutaxy.core
    import eutaxy.core.selectors

    for name in sel.__all__:
        assert not hasattr(eutaxy.core.selectors, name), name
        assert name not in eutaxy.core.__all__, name
