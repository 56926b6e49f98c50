"""The effect record and snapshots."""

from __future__ import annotations

import pytest

from eutaxy.core.effects import VIRTUAL_EPOCH_MS, Effect, Source, find_snapshot, invocation_id, parse_invocation, snapshot


def test_round_trip():
    """to_data and from_data are inverse."""
    effect = Effect("D1:DB", "run", "result", {"args": {"params": ["o-1"]}, "result": {"changes": 1}}, "msg-1#1", 0, VIRTUAL_EPOCH_MS)
    assert effect == Effect.from_data(effect.to_data())
    assert "msg-1#1 effect #0" == effect.describe()


def test_a_source_is_written_only_where_the_users_code_made_the_effect():
    """``source`` round-trips as ``{file, line, column}``; an effect without one writes no key."""
    source = Source(file="src/index.ts", line=42, column=7)
    effect = Effect("D1:DB", "run", "call", {"args": {}}, "msg-1#1", 0, VIRTUAL_EPOCH_MS, source)
    assert {"file": "src/index.ts", "line": 42, "column": 7} == effect.to_data()["source"]
    assert effect == Effect.from_data(effect.to_data())
    assert "src/index.ts:42" == source.text()
    platform = Effect("Queue:q", "ack", "call", {"args": {}}, "msg-1#1", 1, VIRTUAL_EPOCH_MS)
    assert "source" not in platform.to_data()
    assert Effect.from_data(platform.to_data()).source is None


@pytest.mark.parametrize("file", ["/home/me/src/index.ts", "src\\index.ts", ""])
def test_a_source_is_never_a_path_of_this_machine(file):
    """An absolute path, a Windows separator or no file at all is Eutaxy's bug, not a report's text."""
    with pytest.raises(AssertionError):
        Source(file=file, line=1, column=1)


def test_snapshot_sorts_rows_and_is_found():
    """Snapshot rows are sorted by canonical JSON; the last snapshot of a table is found."""
    shot = snapshot("D1:DB", "payments", [{"id": 2}, {"id": 10}, {"id": 1}], time=5)
    assert [{"id": 10}, {"id": 1}, {"id": 2}] == shot.payload["rows"]
    assert ("snapshot", 0, "payments") == (shot.invocation, shot.ordinal, shot.op)
    log = [shot, snapshot("D1:DB", "payments", [], 6)]
    assert 1 == find_snapshot(log, "D1:DB", "payments")
    assert find_snapshot(log, "D1:DB", "accounts") is None


def test_invocation_ids():
    """Invocations are <event id>#<attempt>, attempts from 1."""
    assert "msg-1#2" == invocation_id("msg-1", 2)
    assert ("a#b", 3) == parse_invocation("a#b#3")
    with pytest.raises(ValueError):
        parse_invocation("msg-1")
