"""A toy platform: a pure-Python runtime that follows the run protocol to the letter.

It is the engine's reference platform for tests: small enough to read, and its schedule
space is known in closed form. A scenario's ``toy`` section picks the program every
event runs:

- ``count``: ``effects`` asynchronous writes (``Toy:<event>`` per event with
  ``targets: "independent"``, one ``Toy:shared`` target otherwise). Each point allows the
  first ``faultKinds`` of ``("error", "ambiguous")``; the program catches both and goes
  on, so a fault never changes which points a run reaches, which is what the closed
  forms assume. ``more: true`` makes every effect turn read the clock as well.
- ``orders``: a queue consumer that reads ``Toy:db`` for the message's key, inserts a row
  unless (with ``fixed: true``) the read found one, then acks. Nothing but a crash or an
  error stops it: such a delivery is retried while ``may_redeliver`` allows, which is how
  ``crash_after`` on the insert writes the row twice.

Platform-level faults of the toy itself, for the engine's own checks: ``leak: true`` keeps
a counter across runs and shows it in the read's result (module-level state);
``flaky: true`` moves one effect to another target on every other run, so the same prefix
offers different options (not replayable).

Turns: in a concurrent run (``maxConcurrentInvocations`` above 1) every turn is a turn
decision, even with one option; its options are the parked invocations' effects in start
order, then starting the next event while a slot is free. Synchronous effects (the ack)
are not turns.

Every decision, fault or turn, goes to the engine's one Python follower
(eutaxy.engine.follower.PlanFollower, checked against core's vectors/follower.json like the
JavaScript runtime's), so the toy holds no reading of the plan of its own.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Iterator

from eutaxy.core.effects import VIRTUAL_EPOCH_MS, invocation_id
from eutaxy.core.faults import READ_FAULTS, WRITE_FAULTS, may_redeliver
from eutaxy.core.protocol import Decision, EndState, RunPlan, RunResult
from eutaxy.engine.follower import PlanFollower

COUNT_FAULT_KINDS = ("error", "ambiguous")
#: Queues retries a message three times unless the consumer config says otherwise.
QUEUE_RETRY_LIMIT = 3


class ToyFault(Exception):
    """What toy code sees from an ``error`` or ``ambiguous`` point."""


class _Crash(Exception):
    """The invocation died at a point (crash_before, crash_after)."""


class _Point:
    __slots__ = ("target", "op", "args", "allowed", "sync")

    def __init__(self, target: str, op: str, args: dict, allowed: tuple[str, ...], sync: bool = False) -> None:
        self.target, self.op, self.args, self.allowed, self.sync = target, op, args, allowed, sync


class _Invocation:
    __slots__ = ("event", "attempt", "id", "program", "parked", "ordinal")

    def __init__(self, event: dict, attempt: int, program: Iterator[_Point]) -> None:
        self.event = event
        self.attempt = attempt
        self.id = invocation_id(event["id"], attempt)
        self.program = program
        self.parked: _Point | None = None
        self.ordinal = 0


def _count_program(event: dict, toy: dict, flip: bool) -> Iterator[_Point]:
    kinds = COUNT_FAULT_KINDS[: toy.get("faultKinds", 0)]
    for index in range(toy.get("effects", 1)):
        if toy.get("targets") == "independent":
            target = f"Toy:{event['id']}"
        else:
            target = "Toy:shared"
        if flip and index == 0:
            target = target + "-flipped"
        try:
            yield _Point(target, "put", {"event": event["id"], "index": index}, kinds)
        except ToyFault:
            pass


def _orders_program(event: dict, toy: dict) -> Iterator[_Point]:
    key = event["body"]["key"]
    found = yield _Point("Toy:db", "get", {"key": key}, READ_FAULTS)
    if not (toy.get("fixed") and found["row"] is not None):
        yield _Point("Toy:db", "insert", {"key": key}, WRITE_FAULTS)
    yield _Point("Queue:toy", "ack", {"id": event["id"]}, (), sync=True)


class ToyPlatform:
    """The toy's runtime. State lives on the instance; each run resets it (unless it leaks)."""

    def __init__(self, *, record: bool = True) -> None:
        #: Keep every plan and result as plain data (the schema tests read them).
        self.record = record
        self.runs = 0
        self._leaked = 0
        self.plans: list[dict] = []
        self.results: list[dict] = []

    def describe(self) -> dict:
        return {"platform": "toy", "assumptions": ["the toy runs in one Python process"]}

    def close(self) -> None:
        pass

    def run(self, plan: RunPlan) -> RunResult:
        if self.record:
            self.plans.append(plan.to_data())
        result = _Run(plan, self).run()
        self.runs += 1
        if self.record:
            self.results.append(result.to_data())
        return result


class _Run:
    def __init__(self, plan: RunPlan, platform: ToyPlatform) -> None:
        self.plan = plan
        self.platform = platform
        self.scenario = plan.scenario
        self.toy = dict(self.scenario.get("toy") or {})
        bounds = self.scenario.get("bounds") or {}
        self.concurrency = bounds.get("maxConcurrentInvocations", 1)
        self.max_redeliveries = bounds.get("maxRedeliveries", 2)
        self.follower = PlanFollower.from_plan(plan.to_data())
        self.effects: list[dict] = []
        self.now = VIRTUAL_EPOCH_MS
        self.rows: dict[str, dict] = {}
        self.flip = bool(self.toy.get("flaky")) and platform.runs % 2 == 1

    # -- effects --------------------------------------------------------------------------

    def _record(self, inv: _Invocation, point: _Point, kind: str, payload: dict) -> None:
        self.effects.append(
            {
                "target": point.target,
                "op": point.op,
                "kind": kind,
                "payload": payload,
                "invocation": inv.id,
                "ordinal": inv.ordinal,
                "time": self.now,
            }
        )

    def _commit(self, point: _Point) -> Any:
        if point.op == "get":
            row = self.rows.get(point.args["key"])
            result: dict = {"row": None if row is None else dict(row)}
            if self.toy.get("leak"):
                self.platform._leaked += 1
                result["calls"] = self.platform._leaked
            return result
        if point.op == "insert":
            self.rows.setdefault(point.args["key"], {"key": point.args["key"], "count": 0})["count"] += 1
            return {"changes": 1}
        return {"ok": True}

    def _perform(self, inv: _Invocation, point: _Point) -> Any:
        """Perform one effect point; its result, or raise ToyFault / _Crash into the program."""
        fault = self.follower.fault(inv.id, inv.ordinal, point.target, point.allowed) or "none"
        args = point.args
        self._record(inv, point, "call", {"args": args})
        outcome: Any = None
        if fault in ("none", "crash_after", "ambiguous"):
            outcome = self._commit(point)
            self._record(inv, point, "result", {"args": args, "result": outcome})
        if fault != "none":
            self._record(inv, point, "fault", {"args": args, "fault": fault})
        inv.ordinal += 1
        self.now += 1
        if fault in ("crash_before", "crash_after"):
            raise _Crash(fault)
        if fault in ("error", "ambiguous"):
            raise ToyFault(fault)
        return outcome

    # -- invocations ----------------------------------------------------------------------

    def _program(self, event: dict) -> Iterator[_Point]:
        if self.toy.get("program", "count") == "orders":
            return _orders_program(event, self.toy)
        return _count_program(event, self.toy, self.flip)

    def _advance(self, inv: _Invocation, value: Any = None, error: BaseException | None = None) -> bool:
        """Run ``inv`` to its next asynchronous point (parked, True) or its end (False)."""
        try:
            while True:
                if error is not None:
                    point = inv.program.throw(error)
                else:
                    point = inv.program.send(value)
                value, error = None, None
                if not point.sync:
                    inv.parked = point
                    return True
                try:
                    value = self._perform(inv, point)
                except ToyFault as fault:
                    error = fault
        except StopIteration:
            return False

    def _fail(self, inv: _Invocation, pending: deque) -> None:
        """A delivery that crashed or threw: retried while the platform and the bounds allow."""
        inv.program.close()
        if self.toy.get("program", "count") == "orders" and may_redeliver(
            inv.attempt, QUEUE_RETRY_LIMIT, self.max_redeliveries
        ):
            pending.append((inv.event, inv.attempt + 1))

    def _step(self, inv: _Invocation, pending: deque, first: bool) -> bool:
        """One turn of ``inv``: start it, or perform its parked effect; True while it lives on."""
        try:
            if first:
                return self._advance(inv)
            point = inv.parked
            assert point is not None
            inv.parked = None
            try:
                value = self._perform(inv, point)
            except ToyFault as fault:
                return self._advance(inv, error=fault)
            return self._advance(inv, value)
        except (_Crash, ToyFault):
            self._fail(inv, pending)
            return False

    def run(self) -> RunResult:
        events = [dict(e) for e in (self.scenario.get("drive") or {}).get("events") or []]
        for index, event in enumerate(events, 1):
            event.setdefault("id", f"msg-{index}")
        pending: deque = deque((event, 1) for event in events)
        inflight: list[_Invocation] = []
        concurrent = self.concurrency > 1
        for _ in range(10_000):
            options: list[dict] = [
                {"kind": "effect", "invocation": inv.id, "target": inv.parked.target} for inv in inflight
            ]
            if pending and len(inflight) < self.concurrency:
                options.append({"kind": "start", "event": pending[0][0]["id"]})
            if not options:
                break
            chosen = 0
            decision = None
            if concurrent:
                decision = self.follower.turn(options)
                chosen = decision["chosen"]
            option = options[chosen]
            if option["kind"] == "start":
                event, attempt = pending.popleft()
                inv = _Invocation(event, attempt, self._program(event))
                inflight.append(inv)
                alive = self._step(inv, pending, first=True)
            else:
                inv = inflight[chosen]
                alive = self._step(inv, pending, first=False)
                if decision is not None and self.toy.get("more"):
                    decision["more"] = True
            if not alive:
                inflight.remove(inv)
        else:
            raise AssertionError("the toy run did not end")
        rows = sorted((dict(row) for row in self.rows.values()), key=lambda row: row["key"])
        self.effects.append(
            {
                "target": "Toy:db", "op": "rows", "kind": "snapshot", "payload": {"rows": rows},
                "invocation": "snapshot", "ordinal": 0, "time": self.now,
            }
        )
        return RunResult(
            effects=tuple(self.effects),
            eligible=self.follower.eligible,
            decisions=tuple(_decision(d) for d in self.follower.decisions),
            end=EndState(),
        )


def _decision(data: dict) -> Decision:
    if data["kind"] == "fault":
        return Decision(
            kind="fault", options=tuple(data["options"]), chosen=data["chosen"],
            invocation=data["invocation"], ordinal=data["ordinal"], target=data["target"],
        )
    return Decision(kind="turn", options=tuple(data["options"]), chosen=data["chosen"], more=data["more"])


# -- scenarios ----------------------------------------------------------------------------


def count_scenario(
    *, events: int, effects: int, faults: int = 0, kinds: int = 1, targets: str = "shared", checked: bool = False, **toy
) -> dict:
    """k events of n effects, up to m faults of f kinds, all k in flight at once.

    ``checked`` gives it an invariant (each put once, never broken), as ``check_scenario``
    requires; the enumerator's own tests leave it out, since checking it costs more than
    a toy run.
    """
    return {
        "name": "toy-count",
        "platform": "toy",
        "drive": {"kind": "queue", "name": "toy", "events": [{"id": f"msg-{i}", "body": {"i": i}} for i in range(1, events + 1)]},
        # Every write once: it never breaks, and it sees every put, so no check is vacuous.
        "invariants": [
            {
                "kind": "at_most_once_per_key",
                "name": "each put once",
                "selector": {"target": "Toy:*", "op": "put", "kind": "result"},
                "key": "args",
            }
        ]
        if checked
        else [],
        "bounds": {
            "maxFaultsPerRun": faults,
            "maxRedeliveries": 0,
            "maxConcurrentInvocations": max(events, 2),
            "budgetMs": 10**9,
        },
        "toy": {"program": "count", "effects": effects, "faultKinds": kinds, "targets": targets, **toy},
    }


def orders_scenario(*, events: int = 3, max_faults: int = 2, fixed: bool = False, concurrency: int = 1, **toy) -> dict:
    """The duplicate-write bug: at most one insert per order key."""
    return {
        "name": "toy-orders",
        "platform": "toy",
        "source": "/toy/toy-orders.sim.py",
        "drive": {
            "kind": "queue",
            "name": "toy",
            "events": [{"id": f"msg-{i}", "body": {"key": f"o-{i}"}} for i in range(1, events + 1)],
        },
        "invariants": [
            {
                "kind": "at_most_once_per_key",
                "name": "one insert per order",
                "selector": {"target": "Toy:db", "op": "insert", "kind": "result"},
                "key": "args.key",
            }
        ],
        "bounds": {
            "maxFaultsPerRun": max_faults,
            "maxRedeliveries": 2,
            "maxConcurrentInvocations": concurrency,
            "budgetMs": 10**9,
            "faultProbability": 0.9,
        },
        "toy": {"program": "orders", "fixed": fixed, **toy},
    }
