"""Cuts: where a bound stopped behaviour the platform would have continued.

A bound of the scenario (``maxRedeliveries``, ``alarmsPerObject``) keeps a run finite; it
is never a semantic. Where one stops something the platform would go on with (a message
Cloudflare would deliver a fourth time, an alarm that re-arms itself), the run records a
cut (``RunResult.cuts``): which bound, where (the queue, the object, the caller), the
invocation whose end it stopped, and what it left undone (the message or request ids, and
for a FIFO queue the messages of the group held behind it). A cut message is neither
dead-lettered nor lost: its fate is undetermined.

So a run with cuts judges its invariants in two parts (``judge``): the obligations of the
events a cut left undone are dropped (``at_least_once_per_message`` neither meets nor
breaks them), and a break that a continuation could still change is undetermined, never a
violation. Only the kinds whose breaks no later effect can repair stay determined
(``DETERMINED_UNDER_CUTS``: a duplicate stays a duplicate, an order broken stays broken),
and ``at_least_once_per_message`` for the events that were not left undone, when every cut
left events (and not an alarm, whose work might have met them). A VIOLATED thus never
rests on a cut; the shrinker and the replay check use the same judgement.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import attrs

from eutaxy.core.plain_data import str_tuple
from eutaxy.core.violations import Violation

__all__ = [
    "AFTER_WORK_TIMER_LIMIT",
    "ALARMS_PER_OBJECT",
    "CUT_BOUNDS",
    "DETERMINED_UNDER_CUTS",
    "MAX_REDELIVERIES",
    "Cut",
    "cuts_of",
    "judge",
    "left_events",
    "remaining_events",
]

MAX_REDELIVERIES = "maxRedeliveries"
ALARMS_PER_OBJECT = "alarmsPerObject"
#: A Durable Object's work after its answer that has not settled after this many timer firings.
AFTER_WORK_TIMER_LIMIT = "afterWorkTimerLimit"
#: The bounds that record cuts (a later issue's bound adds its name here).
CUT_BOUNDS = (MAX_REDELIVERIES, ALARMS_PER_OBJECT, AFTER_WORK_TIMER_LIMIT)

#: Invariant kinds whose break no further effect can repair: their violations stand in a run with cuts.
DETERMINED_UNDER_CUTS = frozenset({"at_most_once_per_key", "in_order_per_key", "min_interval_per_key"})

#: Targets whose cuts leave events of a drive (messages, requests) undone, by prefix.
_EVENT_TARGETS = ("Queue:", "SQS:", "Http:")


@attrs.frozen(kw_only=True)
class Cut:
    """One place a bound stopped what the platform would have continued (an entry of ``RunResult.cuts``)."""

    #: The bound's name, as the scenario's bounds name it (``maxRedeliveries``).
    bound: str
    #: Where: the queue, object or caller target (``Queue:orders``, ``SQS:jobs.fifo``, ``DO:ROOM/r1``).
    where: str
    #: The invocation whose end the bound stopped (``msg-1#3``), or the last one before it.
    invocation: str
    #: What was left undone: event ids (messages, requests), the alarm (``alarm.4``), or an
    #: object's work after its answer (``after``).
    left: tuple[str, ...] = attrs.field(converter=str_tuple)
    #: The bound's value.
    limit: int
    #: What the platform allows where the bound cut (its retry limit); None: the platform has none.
    platform_limit: int | None = None
    #: Messages of a FIFO group the cut message held behind it, never delivered.
    behind: tuple[str, ...] = attrs.field(default=(), converter=str_tuple)

    def __attrs_post_init__(self) -> None:
        assert self.bound and self.where and self.left, self
        assert self.limit >= 0, self.limit
        assert self.platform_limit is None or self.platform_limit > self.limit, self

    @property
    def leaves_events(self) -> bool:
        """The cut left events of a drive undone (not an alarm)."""
        return self.where.startswith(_EVENT_TARGETS)

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "bound": self.bound,
            "where": self.where,
            "invocation": self.invocation,
            "left": list(self.left),
            "limit": self.limit,
        }
        if self.platform_limit is not None:
            data["platformLimit"] = self.platform_limit
        if self.behind:
            data["behind"] = list(self.behind)
        return data

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> "Cut":
        platform_limit = data.get("platformLimit")
        return cls(
            bound=str(data["bound"]),
            where=str(data["where"]),
            invocation=str(data["invocation"]),
            left=str_tuple(data["left"]),
            limit=int(data["limit"]),
            platform_limit=None if platform_limit is None else int(platform_limit),
            behind=str_tuple(data.get("behind") or ()),
        )


def cuts_of(data: Iterable[Cut | Mapping[str, Any]]) -> tuple[Cut, ...]:
    return tuple(one if isinstance(one, Cut) else Cut.from_data(one) for one in data)


def left_events(cuts: Iterable[Cut]) -> frozenset[str]:
    """The ids of the events the cuts left undone, those held behind them included."""
    return frozenset(one for cut in cuts if cut.leaves_events for one in (*cut.left, *cut.behind))


def remaining_events(events: Sequence[dict[str, Any]], cuts: Sequence[Cut]) -> list[dict[str, Any]]:
    """The events whose obligations a run with ``cuts`` still decides."""
    left = left_events(cuts)
    return [event for event in events if str(event.get("id")) not in left]


def judge(violations: Sequence[Violation], cuts: Sequence[Cut]) -> tuple[tuple[Violation, ...], tuple[Violation, ...]]:
    """A run's violations as (determined, undetermined): with no cut every one is determined.

    ``violations`` were checked against the remaining events (``remaining_events``).
    """
    if not cuts:
        return tuple(violations), ()
    only_events = all(cut.leaves_events for cut in cuts)
    determined = []
    undetermined = []
    for violation in violations:
        kind = violation.invariant_kind
        if kind in DETERMINED_UNDER_CUTS or (kind == "at_least_once_per_message" and only_events):
            determined.append(violation)
        else:
            undetermined.append(violation)
    return tuple(determined), tuple(undetermined)
