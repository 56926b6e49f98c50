"""Holes: a drafted scenario's todo(...) values refuse to load, naming every hole and its line."""

from __future__ import annotations

import pytest

from eutaxy.core.errors import UserError
from eutaxy.core.plain_data import json_problem

from eutaxy.engine.holes import Hole, find_holes, refuse_holes, todo


def test_todo_records_its_name_hint_and_the_line_that_wrote_it():
    """The hole knows the file name and line of the todo(...) call, so the refusal can point at it."""
    hole = todo("invariants", "what must hold")
    assert "invariants" == hole.name
    assert "what must hold" == hole.hint
    assert hole.where is not None and hole.where.startswith("test_holes.py:")
    assert hole.describe().endswith("TODO(invariants): what must hold")


def test_find_holes_walks_the_fields_in_order_and_nested():
    """Holes inside a drive's events and a list of invariants are found, in the order given."""
    events, invariants = todo("events"), todo("invariants")
    fields = {"drive": {"kind": "queue", "events": events}, "invariants": [invariants], "name": "x"}
    assert [events, invariants] == find_holes(fields)
    assert [] == find_holes({"drive": {"kind": "queue", "events": [{"body": {"a": [1, 2]}}]}})


def test_refuse_holes_names_every_hole_left():
    """One UserError lists each hole with where it was written; no holes, no error."""
    refuse_holes({"name": "done", "invariants": [{"kind": "unique"}]})
    with pytest.raises(UserError) as caught:
        refuse_holes({"drive": {"events": todo("events", "the messages")}, "invariants": [todo("invariants")]})
    message = str(caught.value)
    assert "a draft with 2 holes still to fill" in message
    assert "TODO(events): the messages" in message
    assert "TODO(invariants)" in message
    assert message.count("test_holes.py:") == 2


def test_a_hole_is_not_json_data_and_needs_a_name():
    """A hole that escaped define_scenario would still be refused by the loader's plain-data check."""
    assert json_problem({"events": todo("events")}, "scenario") is not None
    with pytest.raises(UserError, match="name must say what is missing"):
        todo("")
    assert isinstance(todo("x"), Hole)
