"""The differential runner: one fault-free scenario through the proxies and raw, compared.

A proxied run is the platform's own: a plan with no faults (``maxFaults`` 0),
performed by the Node host through Eutaxy's binding proxies, virtual globals and
queue drive. The raw run (``runtime/raw.mjs``, the host's ``raw_run`` op) calls
the Worker's queue handler directly on the real bindings in the same Miniflare
instance, with a plain MessageBatch, after the same D1 reset, and snapshots the
tables the same way. Whatever the two disagree on is a bug in Eutaxy's proxies
or platform model, since the Worker's code and the database are the same.

Compared: the final D1 tables (each row by its canonical JSON, as a multiset per
table) and the per-attempt decisions (which messages each delivery attempt
acked or retried, implicitly or not, and which it dead-lettered). Attempts that
decided nothing are left out on both sides: the proxied log has no trace of an
attempt that threw before touching anything.

The raw side holds no copy of the redelivery rule: Python hands it
:func:`redelivery_table`, core's :func:`~eutaxy.core.faults.may_redeliver` for
every attempt count the run can reach, under Eutaxy's reading of the limits (the
consumer's ``max_retries`` from the config, the scenario's ``maxRedeliveries``
as the engine resolves it). So both sides share the rule and none of the proxy
code. The raw side runs on the isolate's real clock and randomness, so a Worker
whose tables depend on them is outside what this compares.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import attrs

from eutaxy.core.canonical import to_json
from eutaxy.core.errors import UserError
from eutaxy.core.faults import may_redeliver
from eutaxy.engine.bounds import resolve_bounds, with_bounds
from eutaxy.engine.plans import first_plan

from . import host as host_module
from .loader import load_scenario
from .platform import CloudflarePlatform
from .worker import prepare_worker

__all__ = [
    "RAW_PROTOCOL",
    "DifferentialOutcome",
    "DifferentialRunner",
    "compare",
    "decisions_of_effects",
    "decisions_of_raw",
    "redelivery_table",
    "run_differential",
    "tables_of_effects",
    "tables_of_raw",
]

#: The raw request's protocol version (``RAW_PROTOCOL`` in raw.mjs).
RAW_PROTOCOL = 1


def redelivery_table(scenario: Mapping[str, Any]) -> list[bool]:
    """``may_redeliver(attempts, max_retries, maxRedeliveries)`` for attempts 1, 2, … up to the first False.

    The platform limit is the driven queue consumer's ``max_retries`` as the config
    reader resolved it (Cloudflare's documented 3 when unset); ``maxRedeliveries``
    is the engine's resolution of the scenario's bounds.
    """
    drive = scenario.get("drive") or {}
    if drive.get("kind") != "queue":
        raise UserError(f"the differential runner drives queues only, not {drive.get('kind')!r}")
    consumer = prepare_worker(scenario).config.consumer(drive.get("name"))
    if consumer is None:  # prepare_worker already refuses this; kept for a clear message
        raise UserError(f"the Worker has no consumer for queue {drive.get('name')!r}")
    max_redeliveries = resolve_bounds(scenario).max_redeliveries
    table = []
    attempts = 1
    while True:
        table.append(may_redeliver(attempts, consumer.max_retries, max_redeliveries))
        if not table[-1]:
            return table
        attempts += 1


def raw_request(scenario: Mapping[str, Any]) -> dict[str, Any]:
    """The host's ``raw_run`` request for ``scenario``."""
    return {"protocol": RAW_PROTOCOL, "scenario": dict(scenario), "redelivery": redelivery_table(scenario)}


# ---------------------------------------------------------------------------
# What each side's answer says, projected to the same plain data.


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


def decisions_of_raw(raw: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The same projection of a raw run's attempts."""
    projected = [
        {
            "invocation": attempt["invocation"],
            "decisions": [
                {"messageId": d["messageId"], "op": d["op"], "implicit": bool(d.get("implicit"))} for d in attempt["decisions"]
            ],
            "deadLettered": [{"messageId": d["messageId"], "attempts": d["attempts"]} for d in attempt["deadLettered"]],
        }
        for attempt in raw.get("attempts") or []
    ]
    return [attempt for attempt in projected if attempt["decisions"] or attempt["deadLettered"]]


def compare(proxied: Mapping[str, Any], raw: Mapping[str, Any], *, queue: str) -> list[dict[str, Any]]:
    """Every difference between a proxied RunResult and a raw result (plain data, both).

    Each difference is ``{"kind": "end" | "table" | "decisions", ...}``:
    ``end`` when either side did not complete (nothing else is compared then);
    ``table`` per table whose rows differ, with the canonical rows only one side
    has (``proxiedOnly``, ``rawOnly``, a row counted as often as it occurs);
    ``decisions`` per attempt position whose decisions differ.
    """
    proxied_end = proxied.get("end") or {"kind": "completed"}
    raw_end = raw.get("end") or {"kind": "completed"}
    if proxied_end.get("kind") != "completed" or raw_end.get("kind") != "completed":
        return [{"kind": "end", "proxied": dict(proxied_end), "raw": dict(raw_end),
                 "message": f"a side did not complete: proxied {proxied_end.get('kind')}, raw {raw_end.get('kind')}"}]
    differences: list[dict[str, Any]] = []
    effects = proxied.get("effects") or []
    ours, theirs = tables_of_effects(effects), tables_of_raw(raw)
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
    mine_attempts, other_attempts = decisions_of_effects(effects, queue), decisions_of_raw(raw)
    for index in range(max(len(mine_attempts), len(other_attempts))):
        a = mine_attempts[index] if index < len(mine_attempts) else None
        b = other_attempts[index] if index < len(other_attempts) else None
        if a is not None and b is not None and to_json(a) == to_json(b):
            continue
        differences.append({
            "kind": "decisions", "index": index, "proxied": a, "raw": b,
            "message": f"attempt {index} decided differently: proxied {to_json(a)}, raw {to_json(b)}",
        })
    return differences


# ---------------------------------------------------------------------------
# Running both sides.


@attrs.frozen(kw_only=True)
class DifferentialOutcome:
    """Both sides' answers (plain data) and what differs between them."""

    proxied: Mapping[str, Any]
    raw: Mapping[str, Any]
    differences: tuple[Mapping[str, Any], ...]

    @property
    def agree(self) -> bool:
        return not self.differences


class DifferentialRunner:
    """One Worker loaded once; each :meth:`run` performs the proxied and the raw side.

    The proxied side goes through ``platform`` (a :class:`CloudflarePlatform`
    unless a caller passes its own, as tests do for a planted divergence); the
    raw side through the same Node host, which the platform's host factory hands
    over here, so both run in one Miniflare instance on one database.
    """

    def __init__(
        self,
        scenario: Mapping[str, Any],
        *,
        wrap_platform: Callable[[CloudflarePlatform], Any] | None = None,
    ) -> None:
        self._scenario = scenario
        self._request = raw_request(scenario)
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

    def proxied(self, *, seed: str) -> dict[str, Any]:
        """One fault-free run through the proxies: the engine's plan with ``maxFaults`` 0."""
        plan = first_plan(with_bounds(self._scenario, resolve_bounds(self._scenario)), seed, (), 0)
        return self.platform.run(plan).to_data()

    def raw(self) -> dict[str, Any]:
        """One raw run: the handler on the real bindings."""
        self._platform.start()
        answer = self._hosts[-1].request({"op": "raw_run", "request": self._request}, timeout_s=_raw_timeout_s(self._scenario))
        if not answer.get("ok"):
            if answer.get("user"):
                raise UserError(str(answer.get("error")))
            raise host_module.HostError(f"the Node host failed a raw run: {answer.get('error')}\n{self._hosts[-1].log_tail()}")
        return answer["result"]

    def run(self, *, seed: str) -> DifferentialOutcome:
        proxied = self.proxied(seed=seed)
        raw = self.raw()
        queue = (self._scenario.get("drive") or {}).get("name")
        return DifferentialOutcome(proxied=proxied, raw=raw, differences=tuple(compare(proxied, raw, queue=queue)))

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


def _raw_timeout_s(scenario: Mapping[str, Any]) -> float:
    budget_ms = (scenario.get("bounds") or {}).get("budgetMs") or 0
    events = len((scenario.get("drive") or {}).get("events") or [])
    return max(host_module.RUN_TIMEOUT_FLOOR_S, 4 * budget_ms * max(1, events) / 1000)
