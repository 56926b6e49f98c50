"""The in-process run loop for Python platforms: one run of a plan, as plain data out.

A Python platform (AWS Lambda on SQS) runs the user's handler in this interpreter. The
platform knows its delivery model and its effect boundary; this module owns what every
such platform shares, so no platform can read a plan differently:

- ``PlanFollower`` (engine/follower.py, re-exported here) answers each fault decision from
  the plan: the forced prefix while it lasts, then the policy (``seeded``, ``replay`` or
  ``first``), and keeps the decision list and the count of eligible points the RunResult
  reports.
- ``RunLoop`` holds the run's effect log and virtual globals, runs invocations, and makes
  every effect point the same way: record ``call``, decide, then ``fault`` before the real
  work (crash_before, error) or ``result`` and then ``fault`` after it (crash_after,
  ambiguous), and advance virtual time one millisecond.

An injected crash unwinds the handler as ``InvocationCrash``, a ``BaseException``, so a
handler's ``except Exception`` cannot swallow it; a handler that catches it anyway is still
treated as crashed, and any effect it tries afterwards re-raises the crash unrecorded.
``RunUnsupported`` ends the run the same way with a cause.

Only one invocation runs at a time: there are no turn decisions here yet, so a platform
declares ``maxConcurrentInvocations`` above 1 unsupported (``unsupported_result``).

A handler that never reaches its next effect (``while True: pass``) would hang the check,
so every handler call runs under a :class:`Watchdog`: a thread that, once the handler's own
code has run longer than the effect hang bound without reaching an effect point, raises
``HandlerStuck`` in the handler's thread and ends the run UNSUPPORTED (``cpu_bound``),
naming the invocation and its last effect. An effect's own I/O does not count (its client
has its own timeout).

An invocation may carry the platform's time limit (a Lambda function's timeout). Its time
is the virtual time since it started (one millisecond per effect, its sleeps) plus the CPU
time of the handler's own code, effects' I/O left out. The virtual part is checked where
it moves, so it is deterministic: an effect point reached at or past the limit, or a sleep
that would reach it, ends the invocation there. The CPU part is measured by the watchdog
on the handler thread's own CPU clock (not the wall clock, so a loaded machine does not
stop a handler early), which raises ``HandlerTimeout`` once the sum reaches the limit. The
invocation then ends ``timed_out``, as the platform stops it; the run goes on.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import threading
import time
from typing import Any, Callable, Iterator, Mapping, NoReturn, Sequence

import attrs

from eutaxy.core.cuts import Cut
from eutaxy.core.effects import CALL, FAULT, RESULT, Effect, Source, snapshot
from eutaxy.core.faults import AMBIGUOUS, CRASH_AFTER, CRASH_BEFORE, ERROR, PARTIAL
from eutaxy.core.protocol import PROTOCOL_VERSION, RunResult
from eutaxy.core.verdicts import CPU_BOUND
from eutaxy.engine.follower import PlanFollower
from eutaxy.engine.globals import VirtualGlobals

__all__ = [
    "CallOutcome",
    "HandlerExit",
    "HandlerStuck",
    "HandlerTimeout",
    "Invocation",
    "InvocationCrash",
    "PlanFollower",
    "RunLoop",
    "RunUnsupported",
    "Watchdog",
    "plan_data",
    "run_limit_ms",
    "unsupported_result",
]

#: Faults after which the invocation is dead.
_CRASHES = (CRASH_BEFORE, CRASH_AFTER)
#: Faults injected before the real work (nothing committed).
_BEFORE = (CRASH_BEFORE, ERROR)
#: Faults injected after the real work (it committed; the caller never saw the answer).
_AFTER = (CRASH_AFTER, AMBIGUOUS)


#: A run's own wall-clock limit is this many times its effect hang bound, at least
#: RUN_LIMIT_FLOOR_MS (the Cloudflare runtime holds the same rule: core's vectors/run_limit.json).
RUN_LIMIT_FACTOR = 3
RUN_LIMIT_FLOOR_MS = 20_000
#: The cause of a run that went on past its own limit.
RUN_TIME_LIMIT = "run_time_limit"


def run_limit_ms(effect_hang_ms: int) -> int:
    """The real time one run may take: RUN_LIMIT_FACTOR times its effect hang bound, never a share of the budget."""
    return max(RUN_LIMIT_FACTOR * effect_hang_ms, RUN_LIMIT_FLOOR_MS)


class InvocationCrash(BaseException):
    """An injected crash unwinding the handler; never an ``Exception`` a handler catches."""


class HandlerExit(BaseException):
    """The handler called ``os._exit(code)``: on Lambda the runtime process ends there, which
    is the invocation's crash (its error names the call); never the checker's own exit."""

    def __init__(self, code: object) -> None:
        super().__init__(f"os._exit({code!r}) was called; the Lambda runtime ends the invocation there")
        self.code = code


class SignalInterrupt(KeyboardInterrupt):
    """Ctrl-C (SIGINT) that arrived while a handler ran: the person at the terminal's, re-raised.

    A bare ``KeyboardInterrupt`` the handler raises itself is the handler's own error.
    """


@contextlib.contextmanager
def _handler_call_guards() -> Iterator[None]:
    """While the handler runs: ``os._exit`` raises HandlerExit, and a SIGINT handler of Python's
    (the default, or another one that raises) raises SignalInterrupt instead, so a bare
    KeyboardInterrupt out of the handler is always the handler's own (signals reach Python only
    in the main thread, and only through such a handler)."""
    real_exit = os._exit

    def handler_exit(code: object = 0) -> NoReturn:
        raise HandlerExit(code)

    previous: Any = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.getsignal(signal.SIGINT)
    if callable(previous):
        installed = previous

        def interrupt(signum: int, frame: Any) -> None:
            if installed is signal.default_int_handler:
                raise SignalInterrupt()
            try:
                installed(signum, frame)
            except KeyboardInterrupt as error:
                raise SignalInterrupt() from error

        signal.signal(signal.SIGINT, interrupt)
    else:
        previous = None
    os._exit = handler_exit  # type: ignore[assignment]  # os._exit is swapped while the handler runs; its signature is the same
    try:
        yield
    finally:
        os._exit = real_exit
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


#: The least real time a handler's own code may run between effects before it counts as
#: stuck: a loaded machine can stall a small threshold, and cpu_bound must not be a slow
#: machine's verdict. The threshold is the plan's effect hang bound (``bounds.effectHangMs``,
#: the engine's ``Bounds.effect_hang_ms``) when that is longer.
STUCK_FLOOR_MS = 10_000

#: How many times a handler that catches the interruption (``except BaseException``) and
#: carries on is interrupted again; a thread cannot be stopped from outside, so past this
#: the run waits for the handler as before (the AWS platform runs it in a process of its
#: own, which the checker kills when no answer comes: eutaxy.aws.child).
STUCK_INTERRUPTS = 5

#: A handler blocked outside any effect (a lock, a raw socket) uses no CPU, so the stuck
#: threshold, counted in the handler thread's CPU time, would never pass: it counts as stuck
#: too once this many thresholds of real time have gone by. Four, so that a busy loop on a
#: machine shared four ways still reaches the CPU threshold first.
STUCK_REAL_FACTOR = 4

#: The longest the watchdog sleeps between looks at the handler's clocks.
_WATCH_S_MAX = 0.25


class _Interruption(BaseException):
    """What the watchdog raises in the handler's thread; never an ``Exception`` a handler catches."""


class HandlerStuck(_Interruption):
    """The handler's own code ran past the effect hang bound without reaching an effect point."""


class HandlerTimeout(_Interruption):
    """The invocation ran past its platform time limit (a Lambda function's timeout)."""


class RunUnsupported(BaseException):
    """The run reached something Eutaxy cannot control; the run ends UNSUPPORTED."""

    def __init__(self, cause: str, detail: str) -> None:
        super().__init__(f"{cause}: {detail}")
        self.cause = cause
        self.detail = detail


def plan_data(plan: Any) -> dict[str, Any]:
    """The plan as plain data, whether it came as a ``RunPlan`` or as its dict."""
    if isinstance(plan, dict):
        return plan
    to_data = getattr(plan, "to_data", None)
    if to_data is None:
        raise TypeError(f"a run plan must be a dict or have to_data(), got {type(plan).__name__}")
    return to_data()


def _as_run_result(data: dict[str, Any]) -> RunResult:
    """The answer as the protocol's ``RunResult``, checked by its ``from_data``."""
    return RunResult.from_data(data)


def unsupported_result(cause: str, detail: str) -> RunResult:
    """A run that ended before any event: UNSUPPORTED with ``cause``."""
    return _as_run_result(
        {
            "protocol": PROTOCOL_VERSION,
            "effects": [],
            "eligible": 0,
            "decisions": [],
            "end": {"kind": "unsupported", "cause": cause, "detail": detail},
        }
    )


# --- invocations ------------------------------------------------------------------------


@attrs.define(eq=False)
class Invocation:
    """One delivery attempt of one event: ``msg-1#2``."""

    id: str
    #: The ordinal the next effect point of this invocation takes.
    next_ordinal: int = 0
    #: Set once a crash was injected; the invocation is dead from then on.
    crashed: bool = False
    #: Virtual time when the invocation started.
    started_ms: int = 0
    #: The platform's limit on the invocation's time (virtual time plus its own CPU time), if any.
    timeout_ms: int | None = None
    #: Set once the invocation ran past ``timeout_ms``; it is stopped, as the platform stops it.
    timed_out: bool = False

    @property
    def deadline_ms(self) -> int | None:
        """The virtual time the limit ends at when no CPU time is counted (None: no limit)."""
        return None if self.timeout_ms is None else self.started_ms + self.timeout_ms


@attrs.frozen
class CallOutcome:
    """How a handler call ended: ``returned`` (with its value), ``raised``, ``crashed`` or ``timed_out``."""

    kind: str
    value: Any = None
    error: BaseException | None = None


def _ended(invocation: Invocation, outcome: CallOutcome) -> CallOutcome:
    """How a handler call that raised or returned ended for the platform.

    A handler that caught its crash, or its stop at the time limit, and then raised or
    returned anyway still crashed or timed out: what it did after is not the platform's answer.
    """
    if invocation.crashed:
        return CallOutcome(kind="crashed", value=outcome.value, error=outcome.error)
    if invocation.timed_out:
        return CallOutcome(kind="timed_out", value=outcome.value, error=outcome.error)
    return outcome


# --- the watchdog -----------------------------------------------------------------------


@attrs.define(eq=False)
class Watchdog:
    """Interrupts a handler that is stuck, or past its invocation's time limit.

    Armed only while the handler's code runs (``call``); an effect point disarms it for its
    own work and re-arms it with a fresh start, so the stuck threshold is per stretch of code
    between effects, while the CPU time counted toward a time limit adds up over the call.
    Stuck: a stretch used ``threshold_s`` of the handler thread's CPU time, or
    STUCK_REAL_FACTOR times that in real time; it calls ``on_stuck`` (which records the
    cause) and raises ``HandlerStuck`` in the handler's thread at its next bytecode. Past the
    limit: ``past_limit`` (given the call's CPU seconds so far) says so; it calls
    ``on_limit`` and raises ``HandlerTimeout`` there.
    """

    threshold_s: float
    on_stuck: Callable[[], None]
    past_limit: Callable[[float], bool] | None = None
    on_limit: Callable[[], None] | None = None
    _thread_id: int = attrs.field(init=False, factory=threading.get_ident)
    _clock: int = attrs.field(init=False)
    _lock: threading.Lock = attrs.field(init=False, factory=threading.Lock)
    _stopped: threading.Event = attrs.field(init=False, factory=threading.Event)
    _armed: bool = attrs.field(init=False, default=False)
    _since: float = attrs.field(init=False, factory=time.monotonic)
    #: The handler thread's CPU clock when the current stretch began.
    _cpu_since: float = attrs.field(init=False, default=0.0)
    #: CPU seconds of the handler's own code in the stretches already closed.
    _cpu_closed: float = attrs.field(init=False, default=0.0)
    #: Interruptions raised so far (at most STUCK_INTERRUPTS of each kind).
    interrupts: int = attrs.field(init=False, default=0)
    _limit_interrupts: int = attrs.field(init=False, default=0)
    _thread: threading.Thread | None = attrs.field(init=False, default=None)

    @_clock.default
    def _handler_clock(self) -> int:
        # A thread's CPU clock is POSIX's (Linux has it; macOS's Python does not offer it):
        # without one the wall clock stands in, which a loaded machine makes run early.
        get_clock = getattr(time, "pthread_getcpuclockid", None)
        return -1 if get_clock is None else int(get_clock(self._thread_id))

    def _cpu_now(self) -> float:
        return time.monotonic() if self._clock == -1 else time.clock_gettime(self._clock)

    def start(self) -> None:
        self.arm()
        self._thread = threading.Thread(target=self._watch, name="eutaxy-watchdog", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Disarm and end the thread; safe to repeat.

        An interruption raised just before lands in this thread at its next call, possibly
        in here, so callers repeat it until it returns (``_stopped``).
        """
        # Bounded: the watchdog raises at most STUCK_INTERRUPTS interruptions of each of its
        # two kinds, so at most that many land in here before a pass returns.
        for _ in range(2 * STUCK_INTERRUPTS + 1):
            try:
                with self._lock:
                    self._armed = False
                self._stopped.set()
                if self._thread is not None:
                    self._thread.join()
                return
            except _Interruption:
                continue
        raise AssertionError(f"more than {2 * STUCK_INTERRUPTS} watchdog interruptions landed in stop()")

    def arm(self) -> None:
        with self._lock:
            self._armed = True
            self._since = time.monotonic()
            self._cpu_since = self._cpu_now()

    def disarm(self) -> None:
        with self._lock:
            if self._armed:
                self._cpu_closed += max(0.0, self._cpu_now() - self._cpu_since)
            self._armed = False

    def _watch(self) -> None:
        # The watchdog thread's loop lasts as long as the handler call it watches: stop() sets
        # ``_stopped`` when the call ends, and each pass waits at most _WATCH_S_MAX for it.
        stopped = False
        while not stopped:
            with self._lock:
                wait = self._look() if self._armed else _WATCH_S_MAX
            stopped = self._stopped.wait(timeout=min(max(wait, 0.01), _WATCH_S_MAX))

    def _look(self) -> float:
        """One look at an armed handler (under the lock); the seconds until the next is due."""
        stretch_cpu = max(0.0, self._cpu_now() - self._cpu_since)
        stretch_real = time.monotonic() - self._since
        if self.past_limit is not None and self._limit_interrupts < STUCK_INTERRUPTS:
            if self.past_limit(self._cpu_closed + stretch_cpu):
                self._limit_interrupts += 1
                assert self.on_limit is not None
                self.on_limit()
                _raise_in_thread(self._thread_id, HandlerTimeout)
                return 0.1
        stuck = stretch_cpu >= self.threshold_s or stretch_real >= STUCK_REAL_FACTOR * self.threshold_s
        if stuck and self.interrupts < STUCK_INTERRUPTS:
            self.interrupts += 1
            self._since = time.monotonic()
            self._cpu_closed += stretch_cpu
            self._cpu_since = self._cpu_now()
            self.on_stuck()
            _raise_in_thread(self._thread_id, HandlerStuck)
            return self.threshold_s
        # CPU time cannot pass faster than real time, so the remaining CPU is a safe wait.
        return self.threshold_s - stretch_cpu


def _raise_in_thread(thread_id: int, exception: type[BaseException]) -> None:
    """Raise ``exception`` in another Python thread at its next bytecode (CPython's API)."""
    changed = ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(exception))
    assert changed <= 1, "PyThreadState_SetAsyncExc changed more than one thread"


# --- the run loop -----------------------------------------------------------------------


@attrs.define(eq=False)
class RunLoop:
    """One run: its effect log, decisions, virtual globals and the invocation in flight."""

    follower: PlanFollower
    globals: VirtualGlobals
    effects: list[Effect] = attrs.Factory(list)
    current: Invocation | None = None
    end: dict[str, Any] = attrs.Factory(lambda: {"kind": "completed"})
    #: Real seconds a handler's code may run between effects (see Watchdog).
    stuck_threshold_s: float = STUCK_FLOOR_MS / 1000
    #: The effect hang bound the plan carries, of which the run's own limit is a multiple (run_limit_ms).
    effect_hang_ms: int = STUCK_FLOOR_MS
    #: When the run began (time.monotonic), for its own limit.
    _started_s: float = attrs.field(factory=time.monotonic, init=False)
    #: A RunUnsupported seen by the loop; kept so a handler that swallows it cannot hide it.
    _unsupported: RunUnsupported | None = attrs.field(default=None, init=False)
    #: The watchdog of the handler call in flight.
    _watchdog: Watchdog | None = attrs.field(default=None, init=False)
    #: The last effect point reached (target, op, ordinal), for the cpu_bound detail.
    _last_effect: tuple[str, str, int] | None = attrs.field(default=None, init=False)
    #: How each invocation delivered to the handler ended (``RunResult.invocations`` data).
    invocations: list[dict[str, Any]] = attrs.field(init=False, factory=list)
    #: Where a bound stopped what the platform would have continued (``RunResult.cuts``).
    cuts: list[Cut] = attrs.field(init=False, factory=list)
    #: The platform's reading of the user's call that reached an effect point (the handler's
    #: file and line), called at each point the user's code makes; None: effects carry no source.
    call_site: Callable[[], Source | None] | None = attrs.field(default=None, init=False)

    @classmethod
    def from_plan(cls, plan: Any) -> "RunLoop":
        data = plan_data(plan)
        # The follower refuses a plan missing a field it reads (prefix, policy, maxFaults, maxShortBatches, streams.turns).
        follower = PlanFollower.from_plan(data)
        words = data["streams"].get("globals")
        if not isinstance(words, list) or len(words) != 4:
            raise ValueError(f"plan: streams.globals: expected the globals stream's four state words, found {words!r}")
        # The effect hang bound the engine resolved (with_bounds writes it into every plan it
        # makes); budgetMs is the exploration's budget and no threshold of a run.
        hang_ms = ((data.get("scenario") or {}).get("bounds") or {}).get("effectHangMs")
        if isinstance(hang_ms, bool) or not isinstance(hang_ms, int) or hang_ms < 1:
            raise ValueError(
                "plan: scenario.bounds.effectHangMs: expected a positive integer "
                f"(eutaxy.engine.bounds.with_bounds writes it), found {hang_ms!r}"
            )
        return cls(
            follower=follower,
            globals=VirtualGlobals(words),
            stuck_threshold_s=max(STUCK_FLOOR_MS, hang_ms) / 1000,
            effect_hang_ms=hang_ms,
        )

    @property
    def now_ms(self) -> int:
        return self.globals.now_ms

    # --- running -----------------------------------------------------------------------

    def run(self, body: Callable[["RunLoop"], None]) -> None:
        """Run ``body`` (the platform's delivery of every event) under the virtual globals.

        The globals are restored on every exit; a ``RunUnsupported`` ends the run with its
        cause instead of escaping. Anything else escaping ``body`` is the platform's bug and
        propagates (after the restore).
        """
        self._started_s = time.monotonic()
        try:
            with self.globals:
                body(self)
                if self._unsupported is not None:
                    raise self._unsupported
        except RunUnsupported as unsupported:
            self.end = {"kind": "unsupported", "cause": unsupported.cause, "detail": unsupported.detail}
        except HandlerStuck:
            # Delivered in the platform's code just after the handler's: the cause is recorded.
            assert self._unsupported is not None and self._unsupported.cause == CPU_BOUND
            self.end = {"kind": "unsupported", "cause": CPU_BOUND, "detail": self._unsupported.detail}
        finally:
            self.current = None

    @contextlib.contextmanager
    def invocation(self, invocation_id: str, *, timeout_ms: int | None = None) -> Iterator[Invocation]:
        """Make ``invocation_id`` the invocation in flight for the block.

        ``timeout_ms`` is the platform's limit on its time (a Lambda function's timeout):
        past it, the handler is stopped and its call ends ``timed_out``.
        """
        assert self.current is None, f"{invocation_id} started while {self.current.id} runs"
        assert timeout_ms is None or timeout_ms > 0, timeout_ms
        invocation = Invocation(id=invocation_id, started_ms=self.now_ms, timeout_ms=timeout_ms)
        self.current = invocation
        try:
            yield invocation
        finally:
            self.current = None

    def call(self, function: Callable[..., Any], *args: Any) -> CallOutcome:
        """Call the handler inside the current invocation and say how it ended."""
        invocation = self.current
        assert invocation is not None, "call() outside an invocation"
        watchdog = self._watchdog_for(invocation)
        self._watchdog = watchdog
        self.globals.deadline_ms = invocation.deadline_ms
        self.globals.on_deadline = lambda: self._time_out(invocation)
        watchdog.start()
        try:
            try:
                with _handler_call_guards():
                    value = function(*args)
            finally:
                watchdog.stop()
                self._watchdog = None
                self.globals.deadline_ms = None
                self.globals.on_deadline = None
        except HandlerStuck:
            watchdog.stop()
            self._raise_if_unsupported()
            raise AssertionError("HandlerStuck without its cause") from None
        except HandlerTimeout:
            watchdog.stop()
            assert invocation.timed_out, f"HandlerTimeout in {invocation.id} without its record"
            self._raise_if_unsupported()
            return CallOutcome(kind="timed_out")
        except InvocationCrash as crash:
            invocation.crashed = True
            self._raise_if_unsupported()
            return CallOutcome(kind="crashed", error=crash)
        except HandlerExit as exited:
            invocation.crashed = True
            self._raise_if_unsupported()
            return CallOutcome(kind="crashed", error=exited)
        except RunUnsupported as unsupported:
            self._unsupported = unsupported
            raise
        except KeyboardInterrupt as interrupt:
            if type(interrupt) is not KeyboardInterrupt:
                raise  # Ctrl-C (SignalInterrupt), or the CLI's SIGTERM (its subclass): the person's, not the handler's
            self._raise_if_unsupported()
            return _ended(invocation, CallOutcome(kind="raised", error=interrupt))
        except BaseException as error:  # noqa: BLE001 (a handler's SystemExit is its failure too)
            self._raise_if_unsupported()
            return _ended(invocation, CallOutcome(kind="raised", error=error))
        self._raise_if_unsupported()
        return _ended(invocation, CallOutcome(kind="returned", value=value))

    def _watchdog_for(self, invocation: Invocation) -> Watchdog:
        """The call's watchdog: stuck after the hang threshold, stopped at the invocation's limit."""
        if invocation.timeout_ms is None:
            return Watchdog(self.stuck_threshold_s, lambda: self._stuck(invocation))
        limit_s = invocation.timeout_ms / 1000

        def past_limit(cpu_s: float) -> bool:
            return (self.now_ms - invocation.started_ms) / 1000 + cpu_s >= limit_s

        def on_limit() -> None:
            invocation.timed_out = True

        return Watchdog(self.stuck_threshold_s, lambda: self._stuck(invocation), past_limit, on_limit)

    def _time_out(self, invocation: Invocation) -> NoReturn:
        """The invocation reached its limit in virtual time (an effect point, a sleep): stop it there."""
        invocation.timed_out = True
        raise HandlerTimeout(f"{invocation.id} ran past its {invocation.timeout_ms} ms limit")

    def record_outcome(
        self, drive: str, outcome: CallOutcome, error: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """How the current invocation's handler call ended (an entry of ``RunResult.invocations``).

        ``error`` is the uncaught error as ``{name, message, at?}`` (the platform knows
        which frames are the user's), given exactly when the handler raised. The entry is
        returned so the platform can add what it did next (``deadLettered``, ``retriedAll``).
        """
        invocation = self.current
        assert invocation is not None, "record_outcome() outside an invocation"
        assert (error is not None) == (outcome.kind == "raised") or outcome.kind == "crashed", (outcome.kind, error)
        kind = {"returned": "returned", "raised": "threw", "crashed": "crashed", "timed_out": "timed_out"}[outcome.kind]
        entry: dict[str, Any] = {"invocation": invocation.id, "drive": drive, "outcome": kind}
        if invocation.next_ordinal > 0:
            entry["ordinal"] = invocation.next_ordinal - 1
        if error is not None:
            entry["error"] = dict(error)
        self.invocations.append(entry)
        return entry

    def record_cut(self, cut: Cut) -> None:
        """A bound stopped what the platform would have continued (``eutaxy.core.cuts``)."""
        self.cuts.append(cut)

    def unsupported(self, cause: str, detail: str) -> RunUnsupported:
        """Note the cause and return the exception to raise (``raise loop.unsupported(...)``)."""
        error = RunUnsupported(cause, detail)
        if self._unsupported is None:
            self._unsupported = error
        return error

    def _raise_if_unsupported(self) -> None:
        if self._unsupported is not None:
            raise self._unsupported

    def _stuck(self, invocation: Invocation) -> None:
        """Called by the watchdog's thread: the handler's code has run past the threshold."""
        last = (
            f"its last effect was {self._last_effect[0]} {self._last_effect[1]} #{self._last_effect[2]}"
            if self._last_effect is not None
            else "it had reached no effect"
        )
        self.unsupported(
            CPU_BOUND,
            f"{invocation.id} ran past the effect hang bound ({self.stuck_threshold_s * 1000:.0f} ms of its own CPU "
            f"time, or {STUCK_REAL_FACTOR} times that of real time) without reaching an effect point (a loop that "
            f"never ends?); {last}",
        )

    @contextlib.contextmanager
    def _outside_handler(self) -> Iterator[None]:
        """The loop's own work at an effect point: the watchdog neither counts nor interrupts it."""
        watchdog = self._watchdog
        if watchdog is not None:
            watchdog.disarm()
        try:
            yield
        finally:
            if watchdog is not None:
                watchdog.arm()

    # --- effect points -----------------------------------------------------------------

    def effect_point(
        self,
        target: str,
        op: str,
        args: Any,
        allowed: Sequence[str],
        perform: Callable[[], tuple[Any, Any]],
        partial: Callable[[], tuple[Any, Any, Any]] | None = None,
    ) -> tuple[str | None, Any]:
        """One effect point of the current invocation.

        ``perform`` does the real work and returns ``(result payload, value for the
        caller)``; it runs with the real randomness lent back. Returns ``(fault, value)``:
        the fault is None, ``error`` (nothing was performed; the platform raises its error)
        or ``ambiguous`` (it committed; the platform raises its timeout). Crashes raise
        ``InvocationCrash`` here, after recording. A point whose ladder holds ``partial``
        passes ``partial``, which does only part of the work and returns ``(result payload,
        value for the caller, what was left undone)``; under that fault it runs instead of
        ``perform``, and the fault is recorded after its result with ``left`` (the caller
        gets that answer, no error).
        """
        source = self.call_site() if self.call_site is not None else None
        with self._outside_handler():
            invocation = self.current
            assert invocation is not None, f"effect {target} {op} outside an invocation"
            if invocation.crashed:
                raise InvocationCrash(f"{invocation.id} already crashed")
            self._raise_if_unsupported()
            self._check_run_limit(invocation, target, op)
            deadline_ms = invocation.deadline_ms
            if invocation.timed_out or (deadline_ms is not None and self.now_ms >= deadline_ms):
                # Reached at or past its limit: the platform stopped it before this effect.
                self._time_out(invocation)
            ordinal = invocation.next_ordinal
            invocation.next_ordinal += 1
            self._last_effect = (target, op, ordinal)
            self._record(target, op, CALL, {"args": args}, invocation.id, ordinal, source)
            fault = self.follower.fault(invocation.id, ordinal, target, allowed)
            assert fault is None or fault in allowed, (fault, allowed)
            try:
                if fault in _BEFORE:
                    self._inject(invocation, target, op, args, ordinal, fault, source)
                    return fault, None
                if fault == PARTIAL:
                    assert partial is not None, f"{target} {op} took partial without a partial perform"
                    with self.globals.real_randomness():
                        result, value, left = partial()
                    self._record(target, op, RESULT, {"args": args, "result": result}, invocation.id, ordinal, source)
                    self._record(target, op, FAULT, {"args": args, "fault": fault, "left": left}, invocation.id, ordinal, source)
                    return fault, value
                with self.globals.real_randomness():
                    result, value = perform()
                self._record(target, op, RESULT, {"args": args, "result": result}, invocation.id, ordinal, source)
                if fault in _AFTER:
                    self._inject(invocation, target, op, args, ordinal, fault, source)
                return fault, value
            finally:
                self.globals.advance(1)

    def _inject(
        self, invocation: Invocation, target: str, op: str, args: Any, ordinal: int, fault: str, source: Source | None
    ) -> None:
        """Record the fault at this effect point; a crash (before or after) ends the invocation here."""
        self._record(target, op, FAULT, {"args": args, "fault": fault}, invocation.id, ordinal, source)
        if fault in _CRASHES:
            invocation.crashed = True
            raise InvocationCrash(f"{fault} at {invocation.id} effect #{ordinal}")

    def _check_run_limit(self, invocation: Invocation, target: str, op: str) -> None:
        """End the run UNSUPPORTED (run_time_limit) once it has gone on past its own wall-clock limit.

        Checked at each effect point: a handler that keeps making effects (a loop over
        DynamoDB calls) resets the hang watchdog at every one, so only the run's own limit stops it.
        """
        limit_ms = run_limit_ms(self.effect_hang_ms)
        if (time.monotonic() - self._started_s) * 1000 <= limit_ms:
            return
        last = f"the last effect: {self._last_effect[0]} {self._last_effect[1]} #{self._last_effect[2]}" if self._last_effect else "no effect yet"
        self._unsupported = self.unsupported(
            RUN_TIME_LIMIT,
            f"the run went on past its own limit of {limit_ms} ms of real time ({RUN_LIMIT_FACTOR} times the effect "
            f"hang bound, effectHangMs {self.effect_hang_ms}); {invocation.id} was still running ({last}; it was "
            f"about to make {target} {op}): a loop that keeps making effects and never ends? (raise effect_hang_ms if "
            "a run of this scenario is meant to take longer)",
        )
        raise self._unsupported

    def platform_effect(self, target: str, op: str, args: Any, result: Any) -> None:
        """An effect the platform itself makes for the current invocation (a dead-letter).

        It takes no fault and is recorded even when the invocation crashed: the platform,
        not the dead handler, acts. It is a point like any other (``call`` then ``result``,
        the next ordinal, one millisecond).
        """
        invocation = self.current
        assert invocation is not None, f"platform effect {target} {op} outside an invocation"
        ordinal = invocation.next_ordinal
        invocation.next_ordinal += 1
        self._record(target, op, CALL, {"args": args}, invocation.id, ordinal)
        self._record(target, op, RESULT, {"args": args, "result": result}, invocation.id, ordinal)
        self.globals.advance(1)

    def _record(
        self, target: str, op: str, kind: str, payload: Any, invocation: str, ordinal: int, source: Source | None = None
    ) -> None:
        self.effects.append(
            Effect(
                target=target, op=op, kind=kind, payload=payload, invocation=invocation, ordinal=ordinal,
                time=self.now_ms, source=source,
            )
        )

    def record_snapshot(self, target: str, table: str, rows: Sequence[Any]) -> None:
        """A binding's state after the last event (rows sorted by canonical JSON)."""
        self.effects.append(snapshot(target, table, rows, self.now_ms))

    # --- the answer --------------------------------------------------------------------

    def result_data(self) -> dict[str, Any]:
        return {
            "protocol": PROTOCOL_VERSION,
            "effects": [effect.to_data() for effect in self.effects],
            "eligible": self.follower.eligible,
            "decisions": list(self.follower.decisions),
            "end": dict(self.end),
            **({"invocations": [dict(entry) for entry in self.invocations]} if self.invocations else {}),
            **({"cuts": [cut.to_data() for cut in self.cuts]} if self.cuts and self.end.get("kind") == "completed" else {}),
        }

    def result(self) -> RunResult:
        """The RunResult the platform answers with."""
        return _as_run_result(self.result_data())
