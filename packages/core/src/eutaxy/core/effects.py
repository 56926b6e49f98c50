"""The effect log: what a run did, one record per effect point, in order.

Invariants, the shrinker, replay and reports all read the log and nothing else, so the
record is plain data with a fixed shape. A platform's runtime writes it (the JavaScript
runtime as JSON, the Python run loop directly) and ``Effect.from_data`` reads it back.
"""

from __future__ import annotations

from typing import Any, Iterable

import attrs

from eutaxy.core.canonical import string_order, to_json

__all__ = [
    "CALL",
    "DECISION",
    "EFFECT_KINDS",
    "FAULT",
    "RESULT",
    "SNAPSHOT",
    "SNAPSHOT_INVOCATION",
    "VIRTUAL_EPOCH_MS",
    "Effect",
    "Source",
    "as_effect",
    "as_effects",
    "find_snapshot",
    "invocation_id",
    "parse_invocation",
    "snapshot",
]

#: The point was reached; payload ``{args}``.
CALL = "call"
#: The effect committed; payload ``{args, result}``.
RESULT = "result"
#: A fault was injected at the point; payload ``{args, fault}``.
FAULT = "fault"
#: A call into a pure core function the scenario lists in ``specs``; payload ``{args, result}``.
DECISION = "decision"
#: A binding's state after the last event; payload ``{rows}``.
SNAPSHOT = "snapshot"

EFFECT_KINDS = (CALL, RESULT, FAULT, DECISION, SNAPSHOT)

#: The invocation every snapshot is recorded under (no event made it).
SNAPSHOT_INVOCATION = "snapshot"

#: Virtual time starts at 2026-01-01T00:00:00Z, in milliseconds since the Unix epoch.
VIRTUAL_EPOCH_MS = 1767225600000


@attrs.frozen(kw_only=True)
class Source:
    """Where in the user's code the call that made an effect is: ``src/index.ts:42:7``.

    ``file`` is relative to the project's folder (the Worker's config folder, the AWS
    scenario's), with ``/`` between folders, so the same code gives the same bytes on every
    machine; ``line`` and ``column`` count from 1.
    """

    file: str
    line: int
    column: int

    def __attrs_post_init__(self) -> None:
        assert self.file and not self.file.startswith("/") and "\\" not in self.file, self.file
        assert self.line >= 1 and self.column >= 1, (self.line, self.column)

    def to_data(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "column": self.column}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "Source":
        return cls(file=str(data["file"]), line=int(data["line"]), column=int(data["column"]))

    def text(self) -> str:
        """``src/index.ts:42``: how a report names the line (the column is in the JSON)."""
        return f"{self.file}:{self.line}"


@attrs.frozen
class Effect:
    """One record of the log.

    ``invocation`` is ``<event id>#<attempt>`` (attempt from 1), ``ordinal`` the effect
    point's index within its invocation (a decision carries the ordinal of the next point
    of its invocation), ``time`` virtual milliseconds since the Unix epoch. ``source`` is
    the user's call that made the effect, on every record of its point; None for the
    platform's own effects (a response, an implicit ack, a snapshot) and where no frame of
    the user's code made it.
    """

    target: str
    op: str
    kind: str
    payload: Any
    invocation: str
    ordinal: int
    time: int
    source: Source | None = None

    def to_data(self) -> dict[str, Any]:
        data = {
            "target": self.target,
            "op": self.op,
            "kind": self.kind,
            "payload": self.payload,
            "invocation": self.invocation,
            "ordinal": self.ordinal,
            "time": self.time,
        }
        if self.source is not None:
            data["source"] = self.source.to_data()
        return data

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "Effect":
        source = data.get("source")
        return cls(
            target=data["target"],
            op=data["op"],
            kind=data["kind"],
            payload=data.get("payload"),
            invocation=data["invocation"],
            ordinal=data["ordinal"],
            time=data["time"],
            source=Source.from_data(source) if source is not None else None,
        )

    def describe(self) -> str:
        """How messages name this effect: ``msg-1#2 effect #0``."""
        return f"{self.invocation} effect #{self.ordinal}"


def as_effect(value: Effect | dict[str, Any]) -> Effect:
    """Accept an ``Effect`` or its plain data, so checkers take either."""
    if isinstance(value, Effect):
        return value
    return Effect.from_data(value)


def as_effects(values: Iterable[Effect | dict[str, Any]]) -> list[Effect]:
    return [as_effect(value) for value in values]


def invocation_id(event_id: str, attempt: int) -> str:
    """``msg-1`` delivered the second time is ``msg-1#2``."""
    assert attempt >= 1, attempt
    return f"{event_id}#{attempt}"


def parse_invocation(invocation: str) -> tuple[str, int]:
    """Split ``msg-1#2`` into ``("msg-1", 2)``; the attempt is after the last ``#``."""
    event_id, sep, attempt = invocation.rpartition("#")
    if not sep or not attempt.isdigit():
        raise ValueError(f"not an invocation id: {invocation!r}")
    return event_id, int(attempt)


def snapshot(target: str, table: str, rows: Iterable[Any], time: int) -> Effect:
    """A snapshot effect, with its rows sorted by canonical JSON (a table has no order)."""
    ordered = sorted(rows, key=lambda row: string_order(to_json(row)))
    return Effect(
        target=target,
        op=table,
        kind=SNAPSHOT,
        payload={"rows": ordered},
        invocation=SNAPSHOT_INVOCATION,
        ordinal=0,
        time=time,
    )


def find_snapshot(effects: Iterable[Effect], target: str, table: str) -> int | None:
    """The log index of the last snapshot of ``target``'s ``table``, or None."""
    found = None
    for index, effect in enumerate(effects):
        if effect.kind == SNAPSHOT and effect.target == target and effect.op == table:
            found = index
    return found
