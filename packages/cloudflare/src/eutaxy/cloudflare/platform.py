"""The Cloudflare platform: the engine's runs performed by the Node host.

:class:`CloudflarePlatform` follows the engine's plans and decides nothing: each
``run`` sends the plan to the host (which resets the bindings, drives the
events inside workerd and takes every decision the plan says) and returns the
host's answer as a :class:`~eutaxy.core.protocol.RunResult`. On the way back each
registered binding kind adds what its record knows of its own effects after the run
(``BindingKind.with_effect_details``: D1's statement classes).

A crashed runtime is not the end of a check. When workerd or the Node host dies
during a run (killed, out of memory), the platform starts a new host, loads the
Worker again and performs the same plan again, so the check ends with the verdict
it would have given; each restart is said in ``describe()["restarts"]``, which the
verdict's provenance carries. After RESTARTS_MAX it gives up with a HostError
naming what died and how. A host that does not answer within its deadline is
stopped and restarted the same way: a Worker whose code never yields is the
host's watchdog's to stop (UNSUPPORTED, cpu_bound), so a silent host is a fault.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

from eutaxy.core.errors import UserError
from eutaxy.core.protocol import RunPlan, RunResult

from . import bindings, host as host_module
from .loader import load_scenario
from .variables import redact
from .worker import WorkerSpec, compatibility_date_assumption, prepare_worker

__all__ = ["CloudflarePlatform", "create_platform", "expect_holds", "with_environment"]

#: Host restarts a check may take before it gives up: one dead runtime is the machine's
#: bad luck (a kill, the OOM killer); three in one check are a pattern to report.
RESTARTS_MAX = 2


class CloudflarePlatform:
    """One checked Worker, loaded once into one Node host and run many times.

    Built directly, the host starts on the first run (or :meth:`start`), so a
    platform built to read its assumptions costs nothing; :func:`create_platform`
    starts it at once. It stays up until :meth:`close`.
    """

    def __init__(self, scenario: Mapping[str, Any], *, host_factory: Any = None) -> None:
        if scenario.get("platform") != "cloudflare":
            raise UserError(f"scenario {scenario.get('name')!r} is for platform {scenario.get('platform')!r}, not cloudflare")
        self._scenario = scenario
        self._spec: WorkerSpec = prepare_worker(scenario)
        self._host_factory = host_factory or host_module.Host
        self._host: host_module.Host | None = None
        #: Runs performed by this platform's host: a measure for progress, never part of a verdict.
        self.runs = 0
        #: One sentence per host restart: what died, during which run.
        self.restarts: list[str] = []
        #: The sentence saying the runtime ran an older compatibility date than the config asks,
        #: from the host's load answer (the host owns that rule); None when it ran the one asked.
        self.date_assumption: str | None = None
        #: How the host's last start went (``start``): None before it.
        self.start_report: dict[str, Any] | None = None
        #: What the runs so far made the verdict assume (a kind's ``run_assumptions``), each once, in first-seen order.
        self.run_assumptions: list[str] = []

    @property
    def worker(self) -> WorkerSpec:
        return self._spec

    @property
    def source_root(self) -> str:
        """The folder the effects' sources are relative to: the Worker's config folder (the host maps them so)."""
        return self._spec.load.root

    def start(self) -> None:
        """Start the host and load the Worker (idempotent)."""
        if self._host is not None and self._host.alive():
            return
        if self._host is not None:
            # Died between runs: as much a restart as a death during one.
            self._restart(self._host, host_module.HostError("the Node host exited between runs"))
        # A host kept by reuse_hosts (the default factory's only) serves as well as a new one: the load replaces its Worker.
        kept = host_module.take_host() if self._host_factory is host_module.Host else None
        started = kept or self._host_factory()
        try:
            answer = started.request(self._spec.load_message(), timeout_s=host_module.LOAD_TIMEOUT_S)
        except BaseException:
            started.close()
            raise
        if not answer.get("ok"):
            # A failure the host marks as the user's says all there is; any other keeps the host's log.
            tail = "" if answer.get("user") else started.log_tail()
            started.close()
            missing = answer.get("missingClasses") if answer.get("user") else None
            if missing:
                # The kind whose runtime record the bundle wraps the classes for refuses them, at
                # the config of the Worker whose entry lacks them (a callee's: by its own names).
                config = self._spec.config
                [kind] = [kind for kind in bindings.registered() if missing[0] in kind.wrapped_classes(config)]
                for callee in self._spec.load.callees:
                    if missing[0] in callee.classes:
                        own = [callee.classes[name] for name in missing if name in callee.classes]
                        raise kind.missing_export_error(callee.config, own, callee.entry)
                raise kind.missing_export_error(config, missing, self._spec.entry)
            message = redact(_as_seen(f"the Worker {self._spec.entry} did not load: {answer.get('error')}"), self._spec.secrets)
            tail = redact(tail, self._spec.secrets)
            raise UserError(message + (f"\n--- host log ---\n{tail}" if tail else ""))
        started.note_processes()
        self._host = started
        #: How the start went (the bundle built or from the cache, milliseconds, a kept host): for benchmarks, never a verdict.
        self.start_report = {**((answer.get("result") or {}).get("start") or {}), "keptHost": kept is not None}
        dates = (answer.get("result") or {}).get("compatibilityDate")
        assert isinstance(dates, dict) and dates.get("asked") == self._spec.load.compatibility_date, dates
        self.date_assumption = compatibility_date_assumption(self._spec.config.path.name, dates)

    def run(self, plan: RunPlan) -> RunResult:
        """Perform one run as ``plan`` says and return what happened."""
        data = plan.to_data() if hasattr(plan, "to_data") else dict(plan)
        self._check_same_worker(data["scenario"])
        timeout_s = _run_timeout_s(data["scenario"])
        # A bound: each pass either answers or restarts, and restarts are capped.
        for _ in range(RESTARTS_MAX + 2):
            self.start()
            host = self._host
            assert host is not None
            try:
                answer = host.request({"op": "run", "plan": data}, timeout_s=timeout_s)
            except host_module.HostError as error:
                self._restart(host, error)
                continue
            if answer.get("ok"):
                self.runs += 1
                # Secret values leave the run here, before anything records, shows or writes it.
                result = redact(answer["result"], self._spec.secrets)
                effects = result.get("effects") or []
                for kind in bindings.registered():
                    effects = kind.with_effect_details(effects)
                self._note_effects(effects)
                return RunResult.from_data({**result, "effects": effects})
            if answer.get("user"):
                # The runtime found something the scenario must fix (a drive the Worker has no handler for).
                near = answer.get("near")
                raise UserError(redact(_as_seen(str(answer.get("error"))), self._spec.secrets), near=near if isinstance(near, str) else None)
            failure = redact(f"the Node host failed a run: {answer.get('error')}\n{host.log_tail()}", self._spec.secrets)
            error = host_module.HostError(failure)
            if host.what_died() is None:
                raise error
            self._restart(host, error)
        raise AssertionError("unreachable: every pass answers, restarts or raises")

    def note_run(self, result: RunResult) -> None:
        """A run another instance of this platform made for the same check (``--jobs``): its run
        assumptions join this one's, as if this instance had made it."""
        self._note_effects([dict(effect) for effect in result.effects])

    def _note_effects(self, effects: list[Any]) -> None:
        for kind in bindings.registered():
            self.run_assumptions += [sentence for sentence in kind.run_assumptions(effects) if sentence not in self.run_assumptions]

    def _restart(self, host: host_module.Host, error: host_module.HostError) -> None:
        """The runtime died during run ``runs + 1``: note it and close the host, or give up."""
        died = host.what_died() or str(error).splitlines()[0]
        self.close()
        if len(self.restarts) >= RESTARTS_MAX:
            earlier = "; ".join(self.restarts)
            raise host_module.HostError(
                f"{died} during run {self.runs + 1}, after {len(self.restarts)} restarts already ({earlier}); "
                f"the check stops\n{error}"
            ) from None
        self.restarts.append(f"{died} during run {self.runs + 1}; the host was restarted and the run performed again")

    def _check_same_worker(self, scenario: Mapping[str, Any]) -> None:
        # The host loaded one Worker; a plan for another would run the wrong code.
        for field in ("root", "worker", "setup"):
            # The message names the field only: worker holds the scenario's secrets.
            assert scenario.get(field) == self._scenario.get(field), f"a plan for another Worker: its {field} differs"

    def describe(self) -> dict[str, Any]:
        assumptions = list(self._spec.assumptions) + ([self.date_assumption] if self.date_assumption else []) + self.run_assumptions
        described: dict[str, Any] = {"platform": "cloudflare", "assumptions": assumptions}
        # A bound only a kind's bindings use (a Durable Object's alarms and its work after its answer)
        # is unused by a Worker without bindings of that kind.
        config = self._spec.config
        unused = [bound for kind in bindings.registered() if not kind.resources(config) for bound in kind.bounds]
        if unused:
            described["unusedBounds"] = unused
        if self.restarts:
            described["restarts"] = list(self.restarts)
        return described

    def close(self) -> None:
        """Stop the host, or, within ``reuse_hosts``, keep it for the next platform."""
        if self._host is not None:
            if not (self._host_factory is host_module.Host and host_module.give_back(self._host)):
                self._host.close()
            self._host = None

    def __enter__(self) -> "CloudflarePlatform":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def create_platform(scenario: Mapping[str, Any]) -> CloudflarePlatform:
    """The platform for a Cloudflare scenario, its Worker already loaded in the host.

    The host starts here rather than on the first run, so a check's budget is
    spent on runs, not on bundling and starting workerd (about a second, more on
    a cold disk: a budget of 2 s would otherwise leave room for almost nothing),
    and a Worker that does not load is reported before exploration begins.

    Raises:
        UserError: the Worker, its config or the setup does not fit, or the Worker does not load.
    """
    platform = CloudflarePlatform(scenario)
    try:
        platform.start()
    except BaseException:
        platform.close()
        raise
    return platform


def expect_holds(
    scenario_path: str | Path,
    *,
    schedule: Mapping[str, Any],
    events: list[str] | None = None,
    seed: str | None = None,
    env: str | None = None,
) -> dict[str, Any]:
    """Replay ``schedule`` on the scenario and raise AssertionError if an invariant breaks.

    What a regression test written by ``eutaxy check`` calls (``eutaxy.engine.check.expect_holds``
    on this platform): it fails while the bug exists and passes once it is fixed; a replay
    that ends UNSUPPORTED fails too. ``events`` are the verdict's ``keptEvents`` (all when
    None); ``seed`` the verdict's (the scenario file's stem when None); ``env`` the wrangler
    environment the check ran with (``eutaxy check --env``), which wins over the scenario's.
    """
    __tracebackhide__ = True
    from eutaxy.engine import check as check_api

    def load(path: str) -> dict[str, Any]:
        return with_environment(load_scenario(path), env)

    return check_api.expect_holds(
        scenario_path, load_scenario=load, create_platform=create_platform, schedule=schedule, events=events, seed=seed
    )


def with_environment(scenario: dict[str, Any], env: str | None) -> dict[str, Any]:
    """The scenario checked as wrangler environment ``env`` (``eutaxy check --env``); itself when None."""
    if env is None:
        return scenario
    if not isinstance(env, str) or not env:
        raise UserError(f"--env must name a wrangler environment such as 'staging', got {env!r}")
    return {**scenario, "worker": {**(scenario.get("worker") or {}), "env": env}}


def check(
    scenario_path: str | Path,
    *,
    seed: str | None = None,
    max_runs: int | None = None,
    budget_ms: int | None = None,
    exhaustive: bool = False,
    audit: bool = False,
) -> dict:
    """Explore the scenario as ``eutaxy check`` does and return the verdict (a dict keyed by ``kind``).

    For a user's own tests: BOUNDED, VIOLATED and UNSUPPORTED are all returned, never
    raised; a scenario that does not load raises UserError. Nothing is written (the CLI
    and the pytest plugin write the regression test). The seed defaults to the file's
    name, as on the command line.
    """
    from eutaxy.engine import check as check_api

    return check_api.check_file(
        scenario_path, load_scenario=load_scenario, create_platform=create_platform, seed=seed,
        max_runs=max_runs, budget_ms=budget_ms, exhaustive=exhaustive, audit=audit,
    )


def _as_seen(message: str) -> str:
    """Paths in the runtime's message as the user sees them: relative to the working directory when inside it."""
    return message.replace(str(Path.cwd()) + os.sep, "")


def _run_timeout_s(scenario: Mapping[str, Any]) -> float:
    """How long Python waits for a run's answer: a multiple of the plan's effect hang bound.

    ``bounds.effectHangMs`` is what with_bounds resolved (the runtime asserts it is there);
    ``budgetMs`` is the exploration's budget, no threshold of one run.
    """
    hang_ms = (scenario.get("bounds") or {}).get("effectHangMs") or 0
    return max(host_module.RUN_TIMEOUT_FLOOR_S, 4 * hang_ms / 1000)
