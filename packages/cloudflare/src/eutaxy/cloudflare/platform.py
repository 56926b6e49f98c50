"""The Cloudflare platform: the engine's runs performed by the Node host.

:class:`CloudflarePlatform` follows the engine's plans and decides nothing: each
``run`` sends the plan to the host (which resets the bindings, drives the
events inside workerd and takes every decision the plan says) and returns the
host's answer as a :class:`~eutaxy.core.protocol.RunResult`. The one thing it
adds on the way back is the rule the runtime cannot know from the config
alone: a run that touched a D1 binding no setup step resets is UNSUPPORTED.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from eutaxy.core.errors import UserError
from eutaxy.core.protocol import RunPlan, RunResult

from . import host as host_module
from .loader import load_scenario
from .worker import WorkerSpec, prepare_worker, unset_binding_touched

__all__ = ["CloudflarePlatform", "create_platform", "expect_holds"]

#: The cause a run ends with when it touched a D1 binding no setup resets.
BINDING_WITHOUT_SETUP = "binding_without_setup"


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

    @property
    def worker(self) -> WorkerSpec:
        return self._spec

    def start(self) -> None:
        """Start the host and load the Worker (idempotent)."""
        if self._host is not None and self._host.alive():
            return
        if self._host is not None:
            self._host.close()
        started = self._host_factory()
        try:
            answer = started.request(self._spec.load_message(), timeout_s=host_module.LOAD_TIMEOUT_S)
        except BaseException:
            started.close()
            raise
        if not answer.get("ok"):
            tail = started.log_tail()
            started.close()
            message = f"the Worker {self._spec.entry} did not load: {answer.get('error')}"
            raise UserError(message + (f"\n--- host log ---\n{tail}" if tail else ""))
        self._host = started

    def run(self, plan: RunPlan) -> RunResult:
        """Perform one run as ``plan`` says and return what happened."""
        data = plan.to_data() if hasattr(plan, "to_data") else dict(plan)
        self._check_same_worker(data["scenario"])
        self.start()
        assert self._host is not None
        answer = self._host.request({"op": "run", "plan": data}, timeout_s=_run_timeout_s(data["scenario"]))
        if not answer.get("ok"):
            if answer.get("user"):
                # The runtime found something the scenario must fix (a drive the Worker has no handler for).
                raise UserError(str(answer.get("error")))
            raise host_module.HostError(f"the Node host failed a run: {answer.get('error')}\n{self._host.log_tail()}")
        result = answer["result"]
        self.runs += 1
        return RunResult.from_data(self._with_unset_bindings(result))

    def _with_unset_bindings(self, result: dict[str, Any]) -> dict[str, Any]:
        end = result.get("end") or {"kind": "completed"}
        if end.get("kind") == "unsupported" or not self._spec.unset_d1:
            return result
        detail = unset_binding_touched(result.get("effects", []), self._spec.unset_d1)
        if detail is None:
            return result
        return {**result, "end": {"kind": "unsupported", "cause": BINDING_WITHOUT_SETUP, "detail": detail}}

    def _check_same_worker(self, scenario: Mapping[str, Any]) -> None:
        # The host loaded one Worker; a plan for another would run the wrong code.
        for field in ("root", "worker", "setup"):
            assert scenario.get(field) == self._scenario.get(field), (field, scenario.get(field))

    def describe(self) -> dict[str, Any]:
        return {"platform": "cloudflare", "assumptions": list(self._spec.assumptions)}

    def close(self) -> None:
        if self._host is not None:
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
) -> None:
    """Replay ``schedule`` on the scenario and raise AssertionError if an invariant breaks.

    This is what a regression test written by ``eutaxy check`` calls: it fails
    while the bug exists and passes once it is fixed. A replay that ends
    UNSUPPORTED fails too, since it proves nothing either way.

    Args:
        scenario_path: the ``*.sim.py`` file.
        schedule: ``{"faults": [{"invocation", "ordinal", "fault"}], "turns": [...]}``.
        events: the event ids to keep (the verdict's ``keptEvents``); all when None.
        seed: the verdict's seed; the scenario file's name when None.
    """
    from eutaxy.engine.check import replay_scenario

    scenario = load_scenario(scenario_path)
    if scenario.get("platform") != "cloudflare":
        raise UserError(f"{scenario_path} is a {scenario.get('platform')} scenario; use eutaxy.{scenario.get('platform')}.expect_holds")
    if seed is None:
        seed = _default_seed(Path(scenario_path))
    platform = create_platform(scenario)
    try:
        outcome = replay_scenario(scenario, platform, schedule, seed=seed, events=events)
    finally:
        platform.close()
    violations = outcome.get("violations") or []
    if violations:
        lines = [f"{len(violations)} invariant(s) broken when replaying {scenario.get('name')}:"]
        for violation in violations:
            violation = violation.to_data() if hasattr(violation, "to_data") else violation
            lines.append(f"- {violation.get('invariant')} ({violation.get('kind')}): {violation.get('message')}")
        raise AssertionError("\n".join(lines))
    end = (outcome.get("result") or {}).get("end") or {}
    if end.get("kind") == "unsupported":
        raise AssertionError(f"the replay of {scenario.get('name')} was UNSUPPORTED ({end.get('cause')}): {end.get('detail')}")


def _default_seed(scenario_path: Path) -> str:
    name = scenario_path.name
    for suffix in (".sim.py", ".py"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _run_timeout_s(scenario: Mapping[str, Any]) -> float:
    budget_ms = (scenario.get("bounds") or {}).get("budgetMs") or 0
    return max(host_module.RUN_TIMEOUT_FLOOR_S, 4 * budget_ms / 1000)
