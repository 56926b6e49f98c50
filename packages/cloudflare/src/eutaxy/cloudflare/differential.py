"""The differential runner on Cloudflare: the raw side inside workerd and the queue's record.

The loop, the redelivery rule and the comparison are the engine's
(:mod:`eutaxy.engine.differential`); this module supplies only what is Cloudflare's:

- how one raw attempt calls the Worker's handler: :class:`CloudflareRawSide` sends each
  step of the engine's raw loop (reset, one attempt, snapshot) to ``runtime/raw.mjs``
  through the Node host's ``raw_run`` op, in the same Miniflare instance as the proxied
  runs, so both sides run on one database. An attempt calls the queue handler directly on
  the real bindings with a plain MessageBatch whose ``ack()`` and ``retry()`` only note the
  call; the D1 reset and snapshot are the runtime's own, so both sides' tables are read the
  same way. After the last attempt the raw side settles: workerd fires the objects' real
  alarms on the real clock there, and the runtime waits for them, at most the effect hang
  bound of real time, naming any that did not finish;
- what the raw loop delivers: :func:`raw_queue`, the queue drive's events and its
  ``batchSize`` (written by ``define_scenario``; null is the consumer's ``max_batch_size``,
  as the proxied run reads it) and the
  consumer's ``max_retries`` as the config reader resolved it (Cloudflare's documented 3
  when unset);
- what an attempt's record holds in a proxied log: :func:`decisions_of_effects`, the
  effective acks and retries (implicit or not) and the dead letters of ``Queue:<name>``.

An rpc drive goes through the same loop, one call per attempt (:func:`raw_queue`): the raw
side constructs the entrypoint on the real env and calls the method (``raw.mjs``'s ``call``),
its answer compared with the proxied response point's (:func:`answers_of_effects`), a call
that threw sent again as the declared caller sends it, and giving up compared as a dead letter.

So does a cron drive, one tick per attempt (:func:`raw_queue`): the raw side calls the default
export's ``scheduled()`` on the real env with a plain controller (``raw.mjs``'s ``tick``:
``scheduledTime`` the tick's virtual time, ``cron`` the expression, ``noRetry()`` noting the
call), and both sides are read by the queue's rule (:func:`ticks_of_run` for the proxied run):
``noRetry()`` is the tick's explicit ack (the first decision counts; a tick that called it is
not run again, whether it then returned or threw), a tick that returned is acked implicitly,
and one that threw otherwise is run again, at once, while the drive's ``retries`` allow (the
platform limit), then given up (the proxied ``gave_up``, compared as the loop's dead letter).
The loop delivers the ticks in the order of their virtual times, a re-run before the next
tick (the engine's ``RawQueue.due_ms``), but the raw side delivers each at once on the real
clock: ``scheduledTime`` is the tick's virtual time while ``Date.now()`` there is the real
one, so a Worker that reads the clock (or waits on a timer past the next tick's time) is
outside what this compares.

The raw side runs on the isolate's real clock and randomness, so a Worker whose tables
depend on them is outside what this compares.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from eutaxy.core.effects import VIRTUAL_EPOCH_MS, parse_invocation
from eutaxy.core.errors import UserError
from eutaxy.engine import differential as engine_differential
from eutaxy.engine.bounds import resolve_bounds
from eutaxy.engine.scenario import EVENT_TIME_FIELD
from eutaxy.engine.differential import (
    AttemptRecord,
    Delivery,
    DifferentialOutcome,
    RawQueue,
    tables_of_effects,
    tables_of_raw,
)

from . import host as host_module
from .bindings.queue_consumer import consumer_of
from .loader import load_scenario
from .platform import CloudflarePlatform
from .worker import prepare_worker

__all__ = [
    "RAW_PROTOCOL",
    "CloudflareRawSide",
    "DifferentialOutcome",
    "DifferentialRunner",
    "compare",
    "answers_of_effects",
    "decisions_of_effects",
    "decisions_of_raw",
    "raw_queue",
    "redelivery_table",
    "run_differential",
    "tables_of_effects",
    "tables_of_raw",
    "ticks_of_run",
]

#: The raw requests' protocol version (``RAW_PROTOCOL`` in raw.mjs).
RAW_PROTOCOL = 3

#: How the loop reads a decision the raw side reports: a cron tick's ``noRetry()`` is its
#: explicit ack (the tick is done with, whether it then returned or threw); a queue's ack and
#: retry are themselves.
_LOOP_DECISION = {"no_retry": "ack"}

#: A raw run's per-attempt records as the comparison reads them (the engine's ``attempts_of_raw``).
decisions_of_raw = engine_differential.attempts_of_raw


def raw_queue(scenario: Mapping[str, Any]) -> RawQueue:
    """What the raw loop delivers for ``scenario``'s queue drive, its rpc drive's calls or its cron drive's ticks."""
    drive = scenario.get("drive") or {}
    if drive.get("kind") not in ("queue", "rpc", "cron"):
        raise UserError(f"the differential runner drives queues, rpc calls and cron ticks only, not {drive.get('kind')!r}")
    if drive["kind"] == "cron":
        return _raw_ticks(drive)
    timed = [str(event.get("id")) for event in drive.get("events") or [] if EVENT_TIME_FIELD in event]
    if timed:
        # The raw side runs on the isolate's real clock and delivers at once: it has no virtual time to send at.
        raise UserError(f"the differential runner sends every event at once; events {timed} carry at_ms")
    if drive["kind"] == "rpc":
        return _raw_calls(drive)
    consumer = consumer_of(prepare_worker(scenario).config, drive.get("name"))
    if consumer is None:  # prepare_worker already refuses this; kept for a clear message
        raise UserError(f"the Worker has no consumer for queue {drive.get('name')!r}")
    # Written once by define_scenario and checked against the consumer by prepare_worker,
    # as the proxied run's drive reads it: null is the consumer's max_batch_size.
    return RawQueue(
        events=tuple((str(event["id"]), event.get("body")) for event in drive.get("events") or []),
        batch_size=consumer.max_batch_size if drive["batchSize"] is None else drive["batchSize"],
        platform_limit=consumer.max_retries,
    )


def _raw_calls(drive: Mapping[str, Any]) -> RawQueue:
    """An rpc drive's calls as the raw loop sends them: one call per attempt, in order, and a call
    that threw sent again behind the waiting ones while the caller's ``retries`` allow, as the
    proxied drive's caller does with no delay. The raw side has no virtual time, so a caller
    with delays or a deadline is refused."""
    caller = drive.get("caller") or {}
    if caller.get("delaysMs") or caller.get("deadlineMs") is not None:
        raise UserError("the differential runner resends an rpc call at once and waits for every answer; drop delays_ms and deadline_ms")
    return RawQueue(
        events=tuple((str(event["id"]), {"method": event["method"], "args": event["args"]}) for event in drive.get("events") or []),
        batch_size=1,
        platform_limit=caller["retries"],
    )


def _raw_ticks(drive: Mapping[str, Any]) -> RawQueue:
    """A cron drive's ticks as the raw loop sends them: one tick per attempt, in the order of their
    virtual times, each carrying its ``scheduledTime`` (the virtual epoch plus its ``atMs``, as the
    proxied drive's) and the expression; the drive's ``retries`` is the platform limit, so a tick
    that threw without ``noRetry()`` is run again, at once, while they allow."""
    ticks = drive.get("events") or []
    return RawQueue(
        events=tuple(
            (str(tick["id"]), {"scheduledTime": VIRTUAL_EPOCH_MS + tick[EVENT_TIME_FIELD], "cron": drive["cron"]}) for tick in ticks
        ),
        batch_size=1,
        platform_limit=drive["retries"],
        due_ms=tuple(tick[EVENT_TIME_FIELD] for tick in ticks),
    )


def redelivery_table(scenario: Mapping[str, Any]) -> list[bool]:
    """``may_redeliver(attempts, max_retries, maxRedeliveries)`` for attempts 1, 2, … up to the first False.

    The platform limit is the driven queue consumer's ``max_retries`` as the config
    reader resolved it; ``maxRedeliveries`` is the engine's resolution of the bounds.
    """
    return engine_differential.redelivery_table(raw_queue(scenario).platform_limit, resolve_bounds(scenario).max_redeliveries)


def answers_of_effects(effects: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Per attempt of an rpc drive's proxied run, in order, as the raw loop records a call: an
    answer that returned is the call done (an implicit ack), one that threw leaves it to the
    caller, and the caller giving up is the call's dead letter."""
    attempts: dict[str, dict[str, Any]] = {}
    for effect in effects:
        if not str(effect.get("target")).startswith("Rpc:") or effect.get("kind") != "result":
            continue
        payload = effect.get("payload") or {}
        args = payload.get("args") or {}
        attempt = attempts.setdefault(effect["invocation"], {"invocation": effect["invocation"], "decisions": [], "deadLettered": []})
        if effect.get("op") == "response":
            answer = payload.get("result") or {}
            if answer.get("ok"):
                attempt["decisions"].append({"messageId": args.get("callId"), "op": "ack", "implicit": True})
            attempt["answer"] = answer
        elif effect.get("op") == "gave_up":
            attempt["deadLettered"].append({"messageId": args.get("callId"), "attempts": args.get("attempts")})
    return list(attempts.values())


def ticks_of_run(proxied: Mapping[str, Any], drive_name: str) -> list[dict[str, Any]]:
    """Per attempt of a cron drive's proxied run, in order, as the raw loop records a tick: an
    effective ``noRetry()`` at ``Cron:<drive_name>`` is the tick's explicit ack, an attempt that
    returned without one acks it implicitly (read from the run's invocation outcomes: a tick that
    returned makes no point of its own), and a tick given up is its dead letter."""
    attempts: dict[str, dict[str, Any]] = {}
    returned: set[str] = set()
    for outcome in proxied.get("invocations") or []:
        if outcome.get("drive") == "cron":
            attempts[outcome["invocation"]] = {"invocation": outcome["invocation"], "decisions": [], "deadLettered": []}
            if outcome.get("outcome") == "returned":
                returned.add(outcome["invocation"])
    for effect in proxied.get("effects") or []:
        if effect.get("target") != f"Cron:{drive_name}" or effect.get("kind") != "result":
            continue
        payload = effect.get("payload") or {}
        args = payload.get("args") or {}
        attempt = attempts.setdefault(effect["invocation"], {"invocation": effect["invocation"], "decisions": [], "deadLettered": []})
        if effect.get("op") == "no_retry" and (payload.get("result") or {}).get("effective"):
            attempt["decisions"].append({"messageId": args.get("tickId"), "op": _LOOP_DECISION["no_retry"], "implicit": False})
        elif effect.get("op") == "gave_up":
            attempt["deadLettered"].append({"messageId": args.get("tickId"), "attempts": args.get("attempts")})
    for invocation in returned:
        if not attempts[invocation]["decisions"]:
            attempts[invocation]["decisions"].append({"messageId": parse_invocation(invocation)[0], "op": "ack", "implicit": True})
    return [attempt for attempt in attempts.values() if attempt["decisions"] or attempt["deadLettered"]]


def decisions_of_effects(effects: Iterable[Mapping[str, Any]], queue: str) -> list[dict[str, Any]]:
    """Per attempt, in order: the effective acks and retries and the dead letters of a proxied run."""
    target = f"Queue:{queue}"
    attempts: dict[str, dict[str, Any]] = {}
    for effect in effects:
        if effect.get("target") != target or effect.get("kind") != "result":
            continue
        payload = effect.get("payload") or {}
        args = payload.get("args") or {}
        attempt = attempts.setdefault(effect["invocation"], {"invocation": effect["invocation"], "decisions": [], "deadLettered": []})
        if effect.get("op") in ("ack", "retry"):
            if (payload.get("result") or {}).get("effective"):
                attempt["decisions"].append(
                    {"messageId": args.get("messageId"), "op": effect["op"], "implicit": bool(args.get("implicit"))}
                )
        elif effect.get("op") == "dead_letter":
            attempt["deadLettered"].append({"messageId": args.get("messageId"), "attempts": args.get("attempts")})
    return [attempt for attempt in attempts.values() if attempt["decisions"] or attempt["deadLettered"]]


def compare(proxied: Mapping[str, Any], raw: Mapping[str, Any], *, queue: str) -> list[dict[str, Any]]:
    """The engine's :func:`~eutaxy.engine.differential.compare`, the proxied attempts read from ``Queue:<queue>``."""
    return engine_differential.compare(
        proxied, raw, proxied_attempts=decisions_of_effects(proxied.get("effects") or [], queue)
    )


class CloudflareRawSide:
    """The engine's :class:`~eutaxy.engine.differential.RawSide` inside workerd, one request per step."""

    def __init__(self, scenario: Mapping[str, Any], host: Callable[[], host_module.Host]) -> None:
        drive = scenario.get("drive") or {}
        self._queue_name = str(drive.get("name"))
        self._kind = drive.get("kind")
        #: An rpc drive's entrypoint (None: the default export), when the drive is one.
        self._entrypoint: str | None = drive.get("entrypoint")
        # Real time one raw attempt (and, after it, its waitUntil work) may take: the effect
        # hang bound the engine resolves for every run, not the exploration budget.
        self._hang_ms = resolve_bounds(scenario).effect_hang_ms
        self._host = host

    def reset(self) -> None:
        self._request({"op": "reset"})

    def attempt(self, invocation: str, deliveries: Sequence[Delivery]) -> AttemptRecord:
        if self._kind == "rpc":
            (call,) = deliveries
            answer = self._request({
                "op": "call", "entrypoint": self._entrypoint, "invocation": invocation, "hangMs": self._hang_ms,
                "call": {"id": call.id, **call.body},
            })
        elif self._kind == "cron":
            (tick,) = deliveries
            answer = self._request({"op": "tick", "invocation": invocation, "hangMs": self._hang_ms, "tick": {"id": tick.id, **tick.body}})
        else:
            answer = self._request({
                "op": "attempt", "queue": self._queue_name, "invocation": invocation, "hangMs": self._hang_ms,
                "messages": [{"id": d.id, "body": d.body, "attempts": d.attempts} for d in deliveries],
            })
        return AttemptRecord(
            outcome=answer["outcome"],
            calls=tuple((call["messageId"], _LOOP_DECISION.get(call["op"], call["op"])) for call in answer.get("calls") or []),
            detail=str(answer.get("detail") or ""),
            answer=answer.get("answer"),
        )

    def settle(self) -> list[str]:
        return [str(pending) for pending in self._request({"op": "settle", "waitMs": self._hang_ms})["pending"]]

    def snapshots(self) -> list[dict[str, Any]]:
        return list(self._request({"op": "snapshot"})["snapshots"])

    def _request(self, request: dict[str, Any]) -> dict[str, Any]:
        host = self._host()
        # An attempt waits at most hangMs for its handler and as long for its waitUntil work.
        timeout_s = max(host_module.RUN_TIMEOUT_FLOOR_S, 4 * self._hang_ms / 1000)
        answer = host.request({"op": "raw_run", "request": {"protocol": RAW_PROTOCOL, **request}}, timeout_s=timeout_s)
        if not answer.get("ok"):
            if answer.get("user"):
                raise UserError(str(answer.get("error")))
            raise host_module.HostError(f"the Node host failed a raw {request['op']}: {answer.get('error')}\n{host.log_tail()}")
        result = answer["result"]
        assert result.get("protocol") == RAW_PROTOCOL, result
        return result


def _proxied_attempts(drive: Mapping[str, Any]) -> Callable[[Mapping[str, Any]], list[dict[str, Any]]]:
    """How the proxied run of ``drive`` reads per attempt: its queue's decisions, its rpc answers or its ticks."""
    name = str(drive.get("name"))
    if drive.get("kind") == "rpc":
        return lambda proxied: answers_of_effects(proxied.get("effects") or [])
    if drive.get("kind") == "cron":
        return lambda proxied: ticks_of_run(proxied, name)
    return lambda proxied: decisions_of_effects(proxied.get("effects") or [], name)


class DifferentialRunner:
    """One Worker loaded once; each :meth:`run` performs the proxied and the raw side.

    The proxied side goes through ``platform`` (a :class:`CloudflarePlatform` unless
    ``wrap_platform`` puts a double in front of it, as tests do for a planted divergence);
    the raw side through the same Node host, which the platform's host factory hands over
    here, so both run in one Miniflare instance on one database. The loop and the
    comparison are the engine's :class:`~eutaxy.engine.differential.DifferentialRunner`.
    """

    def __init__(
        self,
        scenario: Mapping[str, Any],
        *,
        wrap_platform: Callable[[CloudflarePlatform], Any] | None = None,
    ) -> None:
        queue = raw_queue(scenario)
        self._hosts: list[host_module.Host] = []

        def factory() -> host_module.Host:
            started = host_module.Host()
            self._hosts.append(started)
            return started

        self._platform = CloudflarePlatform(scenario, host_factory=factory)
        self.platform = wrap_platform(self._platform) if wrap_platform else self._platform
        try:
            self._platform.start()
        except BaseException:
            self._platform.close()
            raise
        self._runner = engine_differential.DifferentialRunner(
            scenario,
            platform=self.platform,
            side=CloudflareRawSide(scenario, self._current_host),
            queue=queue,
            proxied_attempts=_proxied_attempts(scenario.get("drive") or {}),
        )

    def _current_host(self) -> host_module.Host:
        # The platform restarts a host that died; the raw side talks to the one alive now.
        self._platform.start()
        return self._hosts[-1]

    def proxied(self, *, seed: str) -> dict[str, Any]:
        """One fault-free run through the proxies: the engine's plan with ``maxFaults`` 0."""
        return self._runner.proxied(seed=seed)

    def raw(self) -> dict[str, Any]:
        """One raw run: the engine's loop, each attempt the handler on the real bindings."""
        return self._runner.raw()

    def run(self, *, seed: str) -> DifferentialOutcome:
        return self._runner.run(seed=seed)

    def close(self) -> None:
        self._platform.close()

    def __enter__(self) -> "DifferentialRunner":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def run_differential(scenario: Mapping[str, Any] | str | Path, *, seed: str | None = None) -> list[dict[str, Any]]:
    """Run ``scenario`` (a dict, or a ``*.sim.py`` path) fault-free both ways; the differences (empty: agree)."""
    if not isinstance(scenario, Mapping):
        scenario = load_scenario(scenario)
    with DifferentialRunner(scenario) as runner:
        return list(runner.run(seed=seed or str(scenario.get("name"))).differences)
