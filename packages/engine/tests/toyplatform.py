"""A toy platform: a pure-Python runtime that follows the run protocol to the letter.

It is the engine's reference platform for tests: small enough to read, and its schedule
space is known in closed form. A scenario's ``toy`` section picks the program every
event runs:

- ``count``: ``effects`` asynchronous writes (``Toy:<event>`` per event with
  ``targets: "independent"``, one ``Toy:shared`` target otherwise). Each point allows the
  first ``faultKinds`` of ``("error", "ambiguous")``; the program catches both and goes
  on, so a fault never changes which points a run reaches, which is what the closed
  forms assume. ``more: true`` makes every event's effect turns read the clock as well
  (``more: [<event id>, ...]``: those events' only), and the time read goes into the
  arguments of the event's next effect, so the order of turns shows in the log.
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

Prefix sharing (``run_shared``, engine/checkpoints.py): the toy copies its whole run state
at the top of every step of its loop, so a plan whose forced prefix repeats an earlier run's
options starts from there. Its programs are small state machines rather than generators,
since a generator cannot be copied. ``ToyPlatform(share=False)`` runs every plan from the
reset; so does a toy that ``leak``s or is ``flaky`` (its state outlives a run, which a
checkpoint would hide).

Every decision, fault or turn, goes to the engine's one Python follower
(eutaxy.engine.follower.PlanFollower, checked against core's vectors/follower.json like the
JavaScript runtime's), so the toy holds no reading of the plan of its own.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from eutaxy.core.effects import VIRTUAL_EPOCH_MS, invocation_id
from eutaxy.core.faults import READ_FAULTS, WRITE_FAULTS, may_redeliver
from eutaxy.core.protocol import Decision, EndState, RunPlan, RunResult
from eutaxy.engine.checkpoints import Checkpoints
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

    def __init__(self, event: dict, attempt: int, program: "_Program") -> None:
        self.event = event
        self.attempt = attempt
        self.id = invocation_id(event["id"], attempt)
        self.program = program
        self.parked: _Point | None = None
        self.ordinal = 0

    def copy(self) -> "_Invocation":
        twin = _Invocation.__new__(_Invocation)
        twin.event, twin.attempt, twin.id, twin.parked, twin.ordinal = self.event, self.attempt, self.id, self.parked, self.ordinal
        twin.program = self.program.copy()
        return twin


class _Program:
    """An event's code, resumed after each point with its value or error; None once it ends."""

    __slots__ = ()

    def resume(self, value: Any, error: BaseException | None, now: int) -> _Point | None:
        raise NotImplementedError

    def copy(self) -> "_Program":
        twin = object.__new__(type(self))
        for name in type(self).__slots__:
            setattr(twin, name, getattr(self, name))
        return twin


class _CountProgram(_Program):
    """``effects`` puts; a ToyFault at one is caught. Reading the clock after each puts the time in the next."""

    __slots__ = ("event", "targets", "kinds", "effects", "flip", "reads", "index", "read")

    def __init__(self, event: dict, toy: dict, flip: bool, reads: bool) -> None:
        self.event = event["id"]
        self.kinds = COUNT_FAULT_KINDS[: toy.get("faultKinds", 0)]
        self.effects = toy.get("effects", 1)
        self.targets = toy.get("targets")
        self.flip, self.reads = flip, reads
        self.index = -1
        self.read: int | None = None

    def resume(self, value: Any, error: BaseException | None, now: int) -> _Point | None:
        if self.index >= 0 and self.reads:
            self.read = now
        self.index += 1
        if self.index >= self.effects:
            return None
        target = f"Toy:{self.event}" if self.targets == "independent" else "Toy:shared"
        if self.flip and self.index == 0:
            target = target + "-flipped"
        args: dict = {"event": self.event, "index": self.index}
        if self.read is not None:
            args["read"] = self.read
        return _Point(target, "put", args, self.kinds)


class _OrdersProgram(_Program):
    """Read the key, insert unless (fixed) the read found a row, ack; a ToyFault is not caught."""

    __slots__ = ("event", "key", "fixed", "stage")

    def __init__(self, event: dict, toy: dict) -> None:
        self.event = event["id"]
        self.key = event["body"]["key"]
        self.fixed = bool(toy.get("fixed"))
        self.stage = 0

    def resume(self, value: Any, error: BaseException | None, now: int) -> _Point | None:
        if error is not None:
            raise error
        self.stage += 1
        if self.stage == 1:
            return _Point("Toy:db", "get", {"key": self.key}, READ_FAULTS)
        if self.stage == 2 and not (self.fixed and value["row"] is not None):
            return _Point("Toy:db", "insert", {"key": self.key}, WRITE_FAULTS)
        if self.stage <= 3:
            self.stage = 3
            return _Point("Queue:toy", "ack", {"id": self.event}, (), sync=True)
        return None


class ToyPlatform:
    """The toy's runtime. State lives on the instance; each run resets it (unless it leaks).

    ``share``: ``run_shared`` starts a run from the latest checkpoint an earlier one took
    whose options taken its forced prefix repeats (engine/checkpoints.py); off, it runs
    from the reset as ``run`` does.
    """

    def __init__(self, *, record: bool = True, share: bool = True) -> None:
        #: Keep every plan and result as plain data (the schema tests read them).
        self.record = record
        self.share = share
        self.runs = 0
        #: Steps of the run loop taken over every run (a run from a checkpoint skips those before it).
        self.steps = 0
        self._leaked = 0
        self.plans: list[dict] = []
        self.results: list[dict] = []
        self.checkpoints: Checkpoints[_State] = Checkpoints()
        #: run() was called by run_shared().
        self._sharing = False

    def describe(self) -> dict:
        return {"platform": "toy", "assumptions": ["the toy runs in one Python process"]}

    def close(self) -> None:
        pass

    def run(self, plan: RunPlan) -> RunResult:
        toy = plan.scenario.get("toy") or {}
        shared = self._sharing and self.share and not toy.get("leak") and not toy.get("flaky")
        if self.record:
            self.plans.append(plan.to_data())
        result = _Run(plan, self, self.checkpoints if shared else None).run()
        self.runs += 1
        if self.record:
            self.results.append(result.to_data())
        return result

    def run_shared(self, plan: RunPlan) -> RunResult:
        # Through run(), so that a test's subclass overriding run() sees every run.
        self._sharing = True
        try:
            return self.run(plan)
        finally:
            self._sharing = False


class _State:
    """A copy of a run's state at the top of a step of its loop (a checkpoint)."""

    __slots__ = ("pending", "inflight", "rows", "effects", "effect_count", "now", "follower", "decision_count", "converted", "step")

    def __init__(self, run: "_Run", step: int) -> None:
        follower = run.follower
        self.pending = tuple(run.pending)
        self.inflight = tuple(inv.copy() for inv in run.inflight)
        self.rows = {key: dict(row) for key, row in run.rows.items()}
        # The log and the decisions only grow: the checkpoint keeps the list and its length.
        self.effects, self.effect_count = run.effects, len(run.effects)
        self.now = run.now
        self.follower = (follower.decisions, follower.eligible, follower.faults_injected, follower.turns_taken, follower.batches_taken, follower.short_batches)
        self.decision_count = len(follower.decisions)
        # The run's decisions as the protocol's, filled in when the run ends (before any resume).
        self.converted = run.converted
        self.step = step

    def restore(self, run: "_Run") -> int:
        """Put this state into ``run`` (copied, so the checkpoint stays as it was); the step it was taken at."""
        run.pending = deque(self.pending)
        run.inflight = [inv.copy() for inv in self.inflight]
        run.rows = {key: dict(row) for key, row in self.rows.items()}
        run.effects = self.effects[: self.effect_count]
        run.now = self.now
        follower = run.follower
        decisions, follower.eligible, follower.faults_injected, follower.turns_taken, follower.batches_taken, follower.short_batches = self.follower
        follower.decisions = decisions[: self.decision_count]
        run.converted = self.converted[: self.decision_count]
        return self.step


class _Run:
    def __init__(self, plan: RunPlan, platform: ToyPlatform, checkpoints: Checkpoints[_State] | None) -> None:
        self.plan = plan
        self.platform = platform
        self.checkpoints = checkpoints
        self.scenario = plan.scenario
        self.toy = dict(self.scenario.get("toy") or {})
        bounds = self.scenario.get("bounds") or {}
        self.concurrency = bounds.get("maxConcurrentInvocations", 1)
        self.max_redeliveries = bounds.get("maxRedeliveries", 2)
        self.follower = PlanFollower.from_plan(plan.to_data())
        self.effects: list[dict] = []
        #: The decisions converted to the protocol's Decision so far (a run from a checkpoint
        #: starts with those of its prefix).
        self.converted: list[Decision] = []
        self.now = VIRTUAL_EPOCH_MS
        self.rows: dict[str, dict] = {}
        self.pending: deque = deque()
        self.inflight: list[_Invocation] = []
        self.flip = bool(self.toy.get("flaky")) and platform.runs % 2 == 1
        more = self.toy.get("more")
        #: The events whose effect turns read the clock.
        self.reading: set[str] | None = None if more is True else set(more or ())

    def _converted(self) -> tuple[Decision, ...]:
        decisions = self.follower.decisions
        self.converted.extend(_decision(d) for d in decisions[len(self.converted) :])
        return tuple(self.converted)

    def _reads_clock(self, event: dict) -> bool:
        return self.reading is None or event["id"] in self.reading

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

    def _program(self, event: dict) -> _Program:
        if self.toy.get("program", "count") == "orders":
            return _OrdersProgram(event, self.toy)
        return _CountProgram(event, self.toy, self.flip, self._reads_clock(event))

    def _advance(self, inv: _Invocation, value: Any = None, error: BaseException | None = None) -> bool:
        """Run ``inv`` to its next asynchronous point (parked, True) or its end (False)."""
        # Bounded by the program's points: each pass resumes it past one.
        while True:
            point = inv.program.resume(value, error, self.now)
            if point is None:
                return False
            value, error = None, None
            if not point.sync:
                inv.parked = point
                return True
            try:
                value = self._perform(inv, point)
            except ToyFault as fault:
                error = fault

    def _fail(self, inv: _Invocation, pending: deque) -> None:
        """A delivery that crashed or threw: retried while the platform and the bounds allow."""
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
        self.pending = deque((event, 1) for event in events)
        concurrent = self.concurrency > 1
        first = 0
        checkpoints = self.checkpoints
        if checkpoints is not None:
            state = checkpoints.resume(self.plan)
            if state is not None:
                first = state.restore(self)
        pending, inflight = self.pending, self.inflight
        for step in range(first, 10_000):
            self.platform.steps += 1
            if checkpoints is not None and step > first:
                checkpoints.take(tuple(d["chosen"] for d in self.follower.decisions), _State(self, step))
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
                if decision is not None and self._reads_clock(inv.event):
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
            decisions=self._converted(),
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
