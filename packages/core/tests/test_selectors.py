"""Selectors and keys: matching, paths, comparisons and validation (the helpers are the platforms')."""

from __future__ import annotations

import pytest

from eutaxy.core import selectors as sel
from eutaxy.core.effects import Effect
from eutaxy.core.errors import UserError

from shapes import WRITES


def _effect(target="D1:DB", op="run", kind="result", payload=None):
    return Effect(target, op, kind, payload if payload is not None else {}, "msg-1#1", 0, 0)


def test_get_path():
    """Dot paths index dicts by key and lists by number; what does not resolve is MISSING."""
    payload = {"args": {"params": ["o-1", None]}, "a.b": 1}
    assert "o-1" == sel.get_path(payload, "args.params.0")
    assert sel.get_path(payload, "args.params.1") is None
    assert sel.get_path(payload, "args.params.2") is sel.MISSING
    assert sel.get_path(payload, "args.params.x") is sel.MISSING
    assert sel.get_path(payload, "args.sql") is sel.MISSING
    assert payload == sel.get_path(payload, "")


def test_target_prefix_and_op_list():
    """A trailing * matches a prefix; op may be a list; None matches anything."""
    assert sel.matches({"target": "D1:*"}, _effect())
    assert not sel.matches({"target": "D1:*"}, _effect(target="R2:B"))
    assert not sel.matches({"target": "D1:D"}, _effect())
    assert sel.matches({"op": ["first", "run"]}, _effect())
    assert not sel.matches({"op": "first"}, _effect())
    assert not sel.matches({"kind": "call"}, _effect())


def test_where_equality_and_comparisons():
    """where holds values (canonical equality) or comparison dicts; MISSING satisfies only neq."""
    writes = _effect(payload={"result": {"changes": 2}, "args": {"params": ["o-1"]}, "statement": "write"})
    assert sel.matches(WRITES, writes)
    assert not sel.matches(WRITES, _effect(payload={"result": {"changes": 0}, "statement": "write"}))
    assert not sel.matches(WRITES, _effect(payload={"result": {"changes": 2}, "statement": "read"}))
    assert not sel.matches(WRITES, _effect(payload={}))
    assert sel.matches({"where": {"result.changes": 2.0}}, writes)
    assert sel.matches({"where": {"result.changes": {"gte": 2, "lt": 3}}}, writes)
    assert not sel.matches({"where": {"result.changes": {"gt": "1"}}}, writes)
    assert sel.matches({"where": {"args.params.0": {"in": ["o-2", "o-1"]}}}, writes)
    assert sel.matches({"where": {"args.params.9": {"neq": "x"}}}, writes)
    assert not sel.matches({"where": {"args.params.9": {"notNull": True}}}, writes)


def test_validation_names_the_field():
    """A malformed selector or query is refused with the field named."""
    with pytest.raises(UserError, match="unknown fields"):
        sel.validate_selector({"targte": "D1:DB"})
    with pytest.raises(UserError, match="op must be"):
        sel.validate_selector({"op": 3})
    with pytest.raises(UserError, match="needs a value"):
        sel.validate_query(sel.rows("D1:DB", "t", [{"column": "c", "op": "gt"}]))
    with pytest.raises(UserError, match="one of"):
        sel.validate_query(sel.rows("D1:DB", "t", [{"column": "c", "op": "like", "value": 1}]))
