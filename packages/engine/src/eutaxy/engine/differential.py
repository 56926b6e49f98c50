"""The differential runner's platform-neutral half: the raw run's loop and the comparison.

A differential case is one fault-free scenario run twice on one platform: once as a check
runs it (the platform's own run through Eutaxy's proxies, a ``first`` plan with
``maxFaults`` 0) and once *raw*, the handler called directly on the real bindings with
nothing of Eutaxy's in between. The handler and the storage are the same, so whatever the
two runs disagree on is a bug in the proxies or in the platform model.

This module owns everything about that which is no platform's own:

- the raw run's loop (:func:`raw_run`): which messages the next attempt delivers (the
  oldest waiting that is due, up to the batch size; a message delivered again waits behind
  those already due), how an attempt's outcome reads (the first ack or retry the handler
  made for a message wins; a handler that returned acks every message it left undecided;
  one that threw leaves them unacked), and whether an unacked message is delivered again:
  core's :func:`~eutaxy.core.faults.may_redeliver` under the platform's limit and the
  scenario's ``maxRedeliveries`` as the engine resolves it, else it is dead-lettered;
- the projection of both runs to the same plain data (the final tables as multisets of
  canonical rows; per attempt, the effective decisions and the dead letters) and their
  comparison (:func:`compare`), each difference a record with a message;
- the runner (:class:`DifferentialRunner`): the proxied run, the raw run, the outcome.

A platform supplies a :class:`RawSide`, which says how one raw attempt calls its handler
(:meth:`RawSide.attempt`, answering an :class:`AttemptRecord`: the outcome and every ack
or retry the handler made before it, in order), how the bindings are reset before the raw
run, how it waits (bounded) after the last attempt for work the platform runs on its own
(:meth:`RawSide.settle`: a Durable Object's real alarm; what did not finish ends the raw
run as ``hung``, so it is a difference naming it, not a wait without end) and how the
bindings are snapshotted after it, and a :class:`RawQueue` (the events, the virtual times they
are due at, the batch size, the platform's redelivery limit); and a projection of its proxied
run into the per-attempt records :func:`compare` reads. It holds no loop, no redelivery rule and no comparison, so
two platforms' raw sides cannot drift apart, and neither can drift from core's rule.

The raw side shares Eutaxy's reading of the queue semantics (above) and core's redelivery
rule, and none of the proxy code; that reading is the reference both runs are compared
under, not something under test here.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence

import attrs

from eutaxy.core.canonical import to_json
from eutaxy.core.effects import invocation_id
from eutaxy.core.faults import REDELIVERY_DEAD_LETTER, may_redeliver, redelivery_stop
from eutaxy.core.protocol import Platform
from eutaxy.engine.bounds import resolve_bounds, with_bounds
from eutaxy.engine.plans import first_plan

__all__ = [
    "AttemptRecord",
    "Delivery",
    "DifferentialOutcome",
    "DifferentialRunner",
    "RawQueue",
    "RawSide",
    "attempts_of_raw",
    "compare",
    "raw_run",
    "redelivery_table",
    "tables_of_effects",
    "tables_of_raw",
]

#: What one raw attempt can end in: the handler returned, it threw, or it (or the work it
#: left behind) did not finish within the platform's hang threshold, which ends the raw run.
OUTCOMES = ("returned", "threw", "hung")

#: The decisions a handler makes about one message.
DECISION_OPS = ("ack", "retry")


# ---------------------------------------------------------------------------
# What a platform supplies.


@attrs.frozen(kw_only=True)
class Delivery:
    """One message as one raw attempt hands it to the handler."""

    id: str
    body: Any
    #: Deliveries of this message so far, this one included: 1 the first time.
    attempts: int

    def __attrs_post_init__(self) -> None:
        assert self.attempts >= 1, self


@attrs.frozen(kw_only=True)
class AttemptRecord:
    """What one raw attempt reports: its outcome and the handler's decisions.

    ``calls`` holds every ``(message id, op)`` the handler made until its outcome, in the
    order it made them, repeats included (the loop, not the platform, decides which one
    counts). A call after the outcome decides nothing and is not in it.
    """

    outcome: str
    calls: tuple[tuple[str, str], ...] = ()
    #: For ``hung``: what did not finish, in the platform's words.
    detail: str = ""
    #: What the handler answered its caller (plain data), for a drive whose handler answers one
    #: (an rpc call: ``{ok, value}`` or ``{ok, error}``); None for a queue's, which answers nobody.
    answer: Any = None

    def __attrs_post_init__(self) -> None:
        assert self.outcome in OUTCOMES, self.outcome
        for call in self.calls:
            assert len(call) == 2 and call[1] in DECISION_OPS, call


@attrs.frozen(kw_only=True)
class RawQueue:
    """What the raw run delivers: the events in send order, the batch size, the platform's limit."""

    #: ``(event id, body)`` per event, in the order they were sent.
    events: tuple[tuple[str, Any], ...]
    batch_size: int
    #: The platform's own redelivery limit (a consumer's ``max_retries``), the first
    #: argument ``may_redeliver`` compares against.
    platform_limit: int
    #: The virtual time (milliseconds from the run's start) each event is due at, in the order
    #: of ``events`` (a cron drive's ticks); empty: every event is due at once, at 0. Only the
    #: order of delivery reads it: the raw side has no virtual clock to deliver on.
    due_ms: tuple[int, ...] = ()

    def __attrs_post_init__(self) -> None:
        assert self.batch_size >= 1, self.batch_size
        assert self.platform_limit >= 0, self.platform_limit
        ids = [event_id for event_id, _ in self.events]
        assert len(set(ids)) == len(ids), f"event ids repeat: {ids}"
        assert not self.due_ms or len(self.due_ms) == len(self.events), (self.due_ms, ids)
        assert all(due >= 0 for due in self.due_ms), self.due_ms


class RawSide(Protocol):
    """A platform's raw side: the handler on the real bindings, one attempt at a time."""

    def reset(self) -> None:
        """Reset the bindings as the proxied run's setup does, before the raw run."""

    def attempt(self, invocation: str, deliveries: Sequence[Delivery]) -> AttemptRecord:
        """Call the handler once with ``deliveries`` (one batch) and report what it did."""

    def settle(self) -> list[str]:
        """Wait, a bounded real time, for work the platform runs on its own after the last attempt.

        Answers what did not finish in time, one sentence each naming it (empty: all did).
        """

    def snapshots(self) -> list[dict[str, Any]]:
        """The bindings' final state: ``[{"target", "table", "rows"}]``, read as the proxied run's snapshots are."""


# ---------------------------------------------------------------------------
# The raw run's loop.


def redelivery_table(platform_limit: int, max_redeliveries: int | None) -> list[bool]:
    """``may_redeliver(attempts, platform_limit, max_redeliveries)`` for attempts 1, 2, ... up to the first False."""
    table = [may_redeliver(1, platform_limit, max_redeliveries)]
    # Bounded: may_redeliver is False once attempts - 1 reaches the platform's limit or max_redeliveries.
    most = platform_limit if max_redeliveries is None else min(platform_limit, max_redeliveries)
    while table[-1]:
        assert len(table) <= most + 1, (platform_limit, max_redeliveries)
        table.append(may_redeliver(len(table) + 1, platform_limit, max_redeliveries))
    return table


def raw_run(side: RawSide, queue: RawQueue, *, max_redeliveries: int | None) -> dict[str, Any]:
    """One raw run: reset, every attempt until no message waits, settle, snapshot.

    The order of delivery is the proxied drives' (their ``driveDue``): the events wait in order of
    the virtual time they are due at (``queue.due_ms``), then of sending; the next attempt takes
    the first waiting ones that are due, up to the batch size, and when none is, time passes to
    the earliest due. An attempt takes no virtual time, so an unacked message delivered again is
    due at the time of the attempt that left it unacked, behind those already waiting. With no
    times, every event is due at 0: the oldest waiting first, a redelivery behind all waiting.

    Answers ``{"attempts": [Attempt], "snapshots": [{target, table, rows}], "end"}`` with
    ``end`` ``{"kind": "completed"}`` or ``{"kind": "hung", "detail"}`` (no snapshots
    then): an attempt that did not finish, or work the side's settle names as unfinished.
    An Attempt is ``{invocation, messages, outcome, decisions: [{messageId, op, implicit}],
    redelivered, deadLettered: [{messageId, attempts}]}``; the invocation is the first
    message's id and delivery count, as the proxied run names it.
    """
    side.reset()
    due_ms = queue.due_ms or (0,) * len(queue.events)
    # sorted is stable: a tie keeps the sending order.
    waiting = sorted((_Waiting(event_id, body, due) for (event_id, body), due in zip(queue.events, due_ms, strict=True)),
                     key=lambda item: item.due)
    now = 0
    attempts: list[dict[str, Any]] = []
    end: dict[str, Any] = {"kind": "completed"}
    # Every attempt settles each of its messages (acked, waiting again or dead-lettered),
    # and may_redeliver bounds how often one waits again, so this many attempts suffice.
    most = queue.platform_limit if max_redeliveries is None else min(queue.platform_limit, max_redeliveries)
    deliveries_max = len(queue.events) * (1 + most)
    for _ in range(deliveries_max):
        if not waiting:
            break
        # Nothing due: time passes to the earliest due (the first of those in line on a tie).
        now = max(now, min(item.due for item in waiting))
        batch = [item for item in waiting if item.due <= now][: queue.batch_size]
        waiting = [item for item in waiting if item not in batch]
        batch = [item.delivered() for item in batch]
        deliveries = tuple(item.delivery for item in batch)
        invocation = invocation_id(deliveries[0].id, deliveries[0].attempts)
        record = side.attempt(invocation, deliveries)
        if record.outcome == "hung":
            end = {"kind": "hung", "detail": record.detail or f"raw attempt {invocation} did not finish"}
            break
        decisions = _decisions(record, deliveries)
        decided = {decision["messageId"]: decision["op"] for decision in decisions}
        redelivered: list[str] = []
        dead_lettered: list[dict[str, Any]] = []
        for item in batch:
            if decided.get(item.id) == "ack":
                continue
            stop = redelivery_stop(item.attempts, queue.platform_limit, max_redeliveries)
            if stop is None:
                item.due = now
                waiting.append(item)
                redelivered.append(item.id)
            elif stop == REDELIVERY_DEAD_LETTER:
                dead_lettered.append({"messageId": item.id, "attempts": item.attempts})
            # A cut (maxRedeliveries below the platform's limit) leaves the message undone, as the proxied run does.
        attempts.append({
            "invocation": invocation, "messages": [d.id for d in deliveries], "outcome": record.outcome,
            "decisions": decisions, "redelivered": redelivered, "deadLettered": dead_lettered,
            **({"answer": record.answer} if record.answer is not None else {}),
        })
    assert end["kind"] == "hung" or not waiting, f"the raw loop's bound ({deliveries_max} attempts) left {len(waiting)} waiting"
    if end["kind"] == "completed":
        pending = side.settle()
        if pending:
            end = {"kind": "hung", "detail": "; ".join(pending)}
    return {"attempts": attempts, "snapshots": side.snapshots() if end["kind"] == "completed" else [], "end": end}


class _Waiting:
    """A message between attempts: its id, body, deliveries so far and the virtual time it is due at."""

    __slots__ = ("id", "body", "attempts", "due")

    def __init__(self, message_id: str, body: Any, due: int) -> None:
        self.id = message_id
        self.body = body
        self.attempts = 0
        self.due = due

    def delivered(self) -> "_Waiting":
        self.attempts += 1
        return self

    @property
    def delivery(self) -> Delivery:
        return Delivery(id=self.id, body=self.body, attempts=self.attempts)


def _decisions(record: AttemptRecord, deliveries: Sequence[Delivery]) -> list[dict[str, Any]]:
    """Each message's decision: the first the handler made, else the implicit one.

    A handler that returned acks what it left undecided; one that threw leaves it
    undecided, so it is delivered again or dead-lettered as a retried one is.
    """
    ids = [delivery.id for delivery in deliveries]
    decisions: list[dict[str, Any]] = []
    decided: set[str] = set()
    for message_id, op in record.calls:
        assert message_id in ids, f"the raw attempt decided {message_id!r}, which is not in its batch {ids}"
        if message_id not in decided:
            decided.add(message_id)
            decisions.append({"messageId": message_id, "op": op, "implicit": False})
    if record.outcome == "returned":
        decisions.extend({"messageId": m, "op": "ack", "implicit": True} for m in ids if m not in decided)
    return decisions


# ---------------------------------------------------------------------------
# Both runs projected to the same plain data, and compared.


def tables_of_effects(effects: Iterable[Mapping[str, Any]]) -> dict[str, list[str]]:
    """``{"D1:DB/payments": [canonical row, ...]}`` from a proxied run's snapshot effects."""
    return {
        f"{effect['target']}/{effect['op']}": sorted(to_json(row) for row in effect["payload"]["rows"])
        for effect in effects
        if effect.get("kind") == "snapshot"
    }


def tables_of_raw(raw: Mapping[str, Any]) -> dict[str, list[str]]:
    """The same projection of a raw run's snapshots."""
    return {
        f"{snapshot['target']}/{snapshot['table']}": sorted(to_json(row) for row in snapshot["rows"])
        for snapshot in raw.get("snapshots") or []
    }


def attempts_of_raw(raw: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per attempt of a raw run, in order: ``{invocation, decisions, deadLettered}``, and its
    ``answer`` where the handler answered a caller (an rpc call).

    Attempts that decided and answered nothing are left out, as a platform's projection of its
    proxied log leaves them out (a proxied attempt that threw before deciding anything
    leaves no trace of its own).
    """
    projected = [
        {
            "invocation": attempt["invocation"],
            "decisions": [
                {"messageId": d["messageId"], "op": d["op"], "implicit": bool(d.get("implicit"))} for d in attempt["decisions"]
            ],
            "deadLettered": [{"messageId": d["messageId"], "attempts": d["attempts"]} for d in attempt["deadLettered"]],
            **({"answer": attempt["answer"]} if "answer" in attempt else {}),
        }
        for attempt in raw.get("attempts") or []
    ]
    return [attempt for attempt in projected if attempt["decisions"] or attempt["deadLettered"] or "answer" in attempt]


def compare(
    proxied: Mapping[str, Any], raw: Mapping[str, Any], *, proxied_attempts: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Every difference between a proxied RunResult and a raw run (plain data, both).

    ``proxied_attempts`` is the platform's projection of the proxied log into the records
    :func:`attempts_of_raw` makes. Each difference is ``{"kind": "end" | "table" |
    "decisions", ..., "message"}``: ``end`` when either run did not complete (nothing else
    is compared then); ``table`` per table whose rows differ, with the canonical rows only
    one run has (``proxiedOnly``, ``rawOnly``, a row counted as often as it occurs);
    ``decisions`` per attempt position whose decisions or dead letters differ.
    """
    proxied_end = proxied.get("end") or {"kind": "completed"}
    raw_end = raw.get("end") or {"kind": "completed"}
    if proxied_end.get("kind") != "completed" or raw_end.get("kind") != "completed":
        return [{"kind": "end", "proxied": dict(proxied_end), "raw": dict(raw_end),
                 "message": f"a side did not complete: proxied {_end_text(proxied_end)}, raw {_end_text(raw_end)}"}]
    differences: list[dict[str, Any]] = []
    ours, theirs = tables_of_effects(proxied.get("effects") or []), tables_of_raw(raw)
    for table in sorted(set(ours) | set(theirs)):
        mine, other = Counter(ours.get(table, [])), Counter(theirs.get(table, []))
        if mine == other and (table in ours) == (table in theirs):
            continue
        proxied_only = sorted((mine - other).elements())
        raw_only = sorted((other - mine).elements())
        where = "only proxied" if table not in theirs else "only raw" if table not in ours else "both"
        differences.append({
            "kind": "table", "table": table, "proxiedOnly": proxied_only, "rawOnly": raw_only,
            "message": f"{table} ({where}): {len(proxied_only)} row(s) only proxied, {len(raw_only)} only raw",
        })
    other_attempts = attempts_of_raw(raw)
    for index in range(max(len(proxied_attempts), len(other_attempts))):
        a = proxied_attempts[index] if index < len(proxied_attempts) else None
        b = other_attempts[index] if index < len(other_attempts) else None
        if a is not None and b is not None and to_json(a) == to_json(b):
            continue
        differences.append({
            "kind": "decisions", "index": index, "proxied": a, "raw": b,
            "message": f"attempt {index} decided differently: proxied {to_json(a)}, raw {to_json(b)}",
        })
    return differences


def _end_text(end: Mapping[str, Any]) -> str:
    detail = end.get("detail")
    return f"{end.get('kind')} ({detail})" if detail else str(end.get("kind"))


# ---------------------------------------------------------------------------
# Running both.


@attrs.frozen(kw_only=True)
class DifferentialOutcome:
    """Both runs' answers (plain data) and what differs between them."""

    proxied: Mapping[str, Any]
    raw: Mapping[str, Any]
    differences: tuple[Mapping[str, Any], ...]

    @property
    def agree(self) -> bool:
        return not self.differences


class DifferentialRunner:
    """One scenario, fault-free, through a platform's proxies and through its raw side.

    ``platform`` performs the proxied run (a plan as the engine makes it: the scenario with
    its bounds resolved, policy ``first``, ``maxFaults`` 0); ``side`` the raw one, on
    ``queue``; ``proxied_attempts`` projects the proxied run (its plain data: the effects, and
    the invocations' outcomes where a drive's decisions depend on them) into per-attempt records.
    The runner owns none of them: whoever built them closes them.
    """

    def __init__(
        self,
        scenario: Mapping[str, Any],
        *,
        platform: Platform,
        side: RawSide,
        queue: RawQueue,
        proxied_attempts: Callable[[Mapping[str, Any]], list[dict[str, Any]]],
    ) -> None:
        self.scenario = scenario
        self.platform = platform
        self.side = side
        self.queue = queue
        self._bounds = resolve_bounds(scenario)
        self._proxied_attempts = proxied_attempts

    def proxied(self, *, seed: str) -> dict[str, Any]:
        """One fault-free run through the proxies: the engine's plan with ``maxFaults`` 0."""
        plan = first_plan(with_bounds(self.scenario, self._bounds), seed, (), 0, max_short_batches=0)
        return self.platform.run(plan).to_data()

    def raw(self) -> dict[str, Any]:
        """One raw run: the handler on the real bindings, through :func:`raw_run`."""
        return raw_run(self.side, self.queue, max_redeliveries=self._bounds.max_redeliveries)

    def run(self, *, seed: str) -> DifferentialOutcome:
        """Both runs, proxied first, and their differences."""
        proxied = self.proxied(seed=seed)
        raw = self.raw()
        differences = compare(proxied, raw, proxied_attempts=self._proxied_attempts(proxied))
        return DifferentialOutcome(proxied=proxied, raw=raw, differences=tuple(differences))
