"""A run's schedule: the faults injected (keyed by invocation and ordinal), the turn picks
and the short batches taken.

Faults are keyed by the effect's position within its invocation, not by a global index,
so a schedule stays valid when the shrinker removes other events. ``turns`` records the
turn picks of a concurrent run so replay follows them rather than the seed. ``batches``
records each queue delivery that took fewer of the waiting messages than the platform
would (a short batch, ``maxShortBatches``), keyed by the invocation it started; a delivery
not listed takes what the platform takes.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import attrs

from eutaxy.core.effects import parse_invocation
from eutaxy.core.errors import UserError
from eutaxy.core.faults import POINT_FAULTS

__all__ = ["BatchAt", "FaultAt", "Schedule", "schedule_sort_key", "turn_switches"]


@attrs.frozen
class FaultAt:
    """Inject ``fault`` at effect point ``ordinal`` of ``invocation`` (``msg-1#2``, ``DO:LEDGER/acct/after``)."""

    invocation: str
    ordinal: int
    fault: str

    def __attrs_post_init__(self) -> None:
        if self.fault not in POINT_FAULTS:
            raise UserError(f"unknown fault {self.fault!r} in a schedule; faults are {', '.join(POINT_FAULTS)}")
        if not isinstance(self.ordinal, int) or isinstance(self.ordinal, bool) or self.ordinal < 0:
            raise UserError(f"a fault's ordinal must be a non-negative integer, got {self.ordinal!r}")
        # An event's attempt (``msg-1#2``), or an invocation of the platform's own that has no
        # attempt (a Durable Object's work after its answer, ``DO:LEDGER/acct/after``).
        if not isinstance(self.invocation, str) or not self.invocation:
            raise UserError(f"a fault's invocation must be an invocation id such as 'msg-1#2', got {self.invocation!r}")

    def to_data(self) -> dict[str, Any]:
        return {"invocation": self.invocation, "ordinal": self.ordinal, "fault": self.fault}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "FaultAt":
        return cls(invocation=data["invocation"], ordinal=data["ordinal"], fault=data["fault"])


@attrs.frozen
class BatchAt:
    """The delivery that starts invocation ``invocation`` (``msg-1#1``) takes ``size`` messages.

    ``size`` is below what the platform would take there (the waiting messages, up to the
    batch size): a short batch. Replay takes it when the delivery offers it, else the
    platform's usual batch.
    """

    invocation: str
    size: int

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.size, int) or isinstance(self.size, bool) or self.size < 1:
            raise UserError(f"a short batch's size must be a positive integer, got {self.size!r}")
        parse_invocation(self.invocation)

    def to_data(self) -> dict[str, Any]:
        return {"invocation": self.invocation, "size": self.size}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "BatchAt":
        return cls(invocation=data["invocation"], size=data["size"])


def _batch_tuple(batches: Iterable[BatchAt]) -> tuple[BatchAt, ...]:
    return tuple(batches)


def _fault_tuple(faults: Iterable[FaultAt]) -> tuple[FaultAt, ...]:
    return tuple(faults)


def _turn_tuple(turns: Iterable[int]) -> tuple[int, ...]:
    return tuple(int(turn) for turn in turns)


@attrs.frozen
class Schedule:
    faults: tuple[FaultAt, ...] = attrs.field(default=(), converter=_fault_tuple)
    turns: tuple[int, ...] = attrs.field(default=(), converter=_turn_tuple)
    #: The short batches taken, in the order their deliveries started.
    batches: tuple[BatchAt, ...] = attrs.field(default=(), converter=_batch_tuple)

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"faults": [fault.to_data() for fault in self.faults], "turns": list(self.turns)}
        # Only a schedule with a short batch names them, so every other reads as before.
        if self.batches:
            data["batches"] = [batch.to_data() for batch in self.batches]
        return data

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "Schedule":
        return cls(
            faults=tuple(FaultAt.from_data(fault) for fault in data.get("faults") or []),
            turns=tuple(data.get("turns") or []),
            batches=tuple(BatchAt.from_data(batch) for batch in data.get("batches") or []),
        )

    def fault_at(self, invocation: str, ordinal: int) -> str | None:
        """The fault this schedule injects at that point, if any."""
        for fault in self.faults:
            if fault.invocation == invocation and fault.ordinal == ordinal:
                return fault.fault
        return None


def turn_switches(effects: Iterable[Mapping[str, Any]]) -> int:
    """How many times a run's log passes from one invocation to another (snapshots left out).

    It is what a reader of the trace follows: a run with one invocation at a time switches
    once per invocation after the first, and every further switch is an interleaving.
    """
    switches = 0
    previous = None
    for effect in effects:
        if effect.get("kind") == "snapshot":
            continue
        invocation = effect.get("invocation")
        if previous is not None and invocation != previous:
            switches += 1
        previous = invocation
    return switches


def schedule_sort_key(
    kept_events: int, schedule: Schedule, *, switches: int
) -> tuple[int, int, int, int, int, tuple[int, ...]]:
    """The one order for "smaller", used by the shrinker to accept only strict progress.

    ``switches`` is ``turn_switches`` of the run that took ``schedule``.

    1. Fewer events first: each event removed is a whole invocation less to read.
    2. Then fewer faults: each is a step the reader must follow and a cause to weigh.
    3. Then fewer short batches: each is a delivery that departs from what the platform
       usually does (take every waiting message up to the batch size), so a trace that
       needs none reads as the platform runs.
    4. Then fewer turn picks: each is a move of the scheduler (fewer effects reached).
    5. Then fewer switches between invocations in the trace: each is a place where the
       reader must keep two invocations' states in mind, so a concurrent bug reads best
       with no more switches than it needs. It comes before the picks themselves because
       a lower pick (option 0, the invocation waiting longest) can mean more switches.
    6. Then lower turn picks from the left: option 0 is arrival order, so lower picks read
       closer to the run without interleaving.
    """
    return (kept_events, len(schedule.faults), len(schedule.batches), len(schedule.turns), switches, schedule.turns)
