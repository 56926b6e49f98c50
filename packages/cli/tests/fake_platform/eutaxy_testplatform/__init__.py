"""A tiny platform that speaks the run protocol, for the CLI's tests only.

It stands where ``eutaxy.cloudflare`` would: the CLI finds it through the documented
``register_platform`` hook or ``EUTAXY_PLATFORM_MODULES``. Each queue event inserts one
payment row keyed by ``body.orderId``; ``scenario["mode"]`` picks the Worker's behaviour:
``buggy`` (a plain insert, so a redelivery after ``crash_after`` writes twice),
``idempotent`` (the second insert for a key changes nothing) or ``kv`` (touches a binding
Eutaxy cannot control, so every run ends unsupported). It follows plans exactly as the
contract describes: forced prefix first, then the seeded, replay or first policy.
"""

from __future__ import annotations

from typing import Any

from eutaxy.core.faults import WRITE_FAULTS, may_redeliver
from eutaxy.core.protocol import Decision, EndState, RunPlan, RunResult, ReplayPolicy, SeededPolicy

START_MS = 1767225600000
SQL = "INSERT INTO payments (order_id, amount_cents) VALUES (?, ?)"
PLATFORM_RETRIES = 3

#: Every plan each platform object ran, so tests can see what the engine asked for.
RUNS: list[dict] = []
#: Calls to expect_holds, for the emitted regression test's round trip.
HOLDS: list[dict] = []


def define_scenario(**fields: Any) -> dict:
    return {"platform": "testplatform", "setup": [], "specs": [], **fields}


def create_platform(scenario: dict) -> "TestPlatform":
    return TestPlatform()


def load_scenario(path) -> dict:
    from eutaxy.engine.scenario_file import import_scenario

    return import_scenario(path)


def expect_holds(scenario_path, *, schedule, events, seed) -> dict:
    """The engine's expect_holds on this platform: a real replay of the stand-in Worker."""
    __tracebackhide__ = True
    from eutaxy.engine import check as check_api

    HOLDS.append({"path": str(scenario_path), "schedule": schedule, "events": events, "seed": seed})
    return check_api.expect_holds(scenario_path, load_scenario=load_scenario, create_platform=create_platform,
                                  schedule=schedule, events=events, seed=seed)


class TestPlatform:
    __test__ = False

    def __init__(self) -> None:
        self.closed = False

    def describe(self) -> dict:
        return {"platform": "testplatform", "assumptions": ["the test platform is a stand-in"]}

    def close(self) -> None:
        self.closed = True

    def run(self, plan: RunPlan) -> RunResult:
        RUNS.append(plan.to_data())
        return _Run(plan).perform()


class _Run:
    def __init__(self, plan: RunPlan) -> None:
        self.plan = plan
        self.scenario = plan.scenario
        self.effects: list[dict] = []
        self.decisions: list[Decision] = []
        self.eligible = 0
        self.injected = 0
        self.rows: list[dict] = []
        self.clock = START_MS

    def perform(self) -> RunResult:
        bounds = self.scenario.get("bounds") or {}
        if self.scenario.get("mode") == "ai":
            return RunResult(end=EndState(kind="unsupported", cause="binding_not_allowed", detail="AI binding AI was touched"))
        for event in self.scenario["drive"]["events"]:
            attempt = 1
            while True:
                handled = self._invoke(event, f"{event['id']}#{attempt}")
                if handled or not may_redeliver(attempt, PLATFORM_RETRIES, bounds.get("maxRedeliveries", 0)):
                    break
                attempt += 1
        rows = sorted(self.rows, key=lambda row: (row["order_id"], row["id"]))
        self._record("snapshot", "snapshot", 0, {"rows": rows}, op="payments")
        return RunResult(effects=tuple(self.effects), eligible=self.eligible, decisions=tuple(self.decisions))

    def _invoke(self, event: dict, invocation: str) -> bool:
        key = event["body"]["orderId"]
        args = {"sql": SQL, "params": [key, event["body"].get("amountCents", 0)]}
        fault = self._fault_decision(invocation, 0)
        self._record("call", invocation, 0, {"args": args})
        if fault in ("crash_before", "error"):
            self._record("fault", invocation, 0, {"args": args, "fault": fault})
            return False
        duplicate = any(row["order_id"] == key for row in self.rows)
        changes = 0 if duplicate and self.scenario.get("mode") == "idempotent" else 1
        if changes:
            self.rows.append({"id": len(self.rows) + 1, "order_id": key})
        self._record("result", invocation, 0, {"args": args, "result": {"changes": changes}})
        if fault is not None:
            self._record("fault", invocation, 0, {"args": args, "fault": fault})
            return False
        return True

    def _fault_decision(self, invocation: str, ordinal: int) -> str | None:
        if self.injected >= self.plan.max_faults:
            return None
        options = ("none",) + WRITE_FAULTS
        index = len(self.decisions)
        if index < len(self.plan.prefix):
            chosen = self.plan.prefix[index]
            chosen = chosen if chosen < len(options) else 0
        else:
            chosen = self._policy_choice(invocation, ordinal, options)
        self.eligible += 1
        self.decisions.append(
            Decision(kind="fault", options=options, chosen=chosen, invocation=invocation, ordinal=ordinal, target="D1:DB")
        )
        if chosen == 0:
            return None
        self.injected += 1
        return options[chosen]

    def _policy_choice(self, invocation: str, ordinal: int, options: tuple[str, ...]) -> int:
        policy = self.plan.policy
        if isinstance(policy, SeededPolicy):
            draw = policy.faults.get(self.eligible)
            return 0 if draw is None else 1 + draw % (len(options) - 1)
        if isinstance(policy, ReplayPolicy):
            for fault in policy.faults:
                if (fault.invocation, fault.ordinal) == (invocation, ordinal) and fault.fault in options:
                    return options.index(fault.fault)
        return 0

    def _record(self, kind: str, invocation: str, ordinal: int, payload: dict, *, op: str = "run") -> None:
        self.effects.append(
            {"target": "D1:DB", "op": op, "kind": kind, "payload": {**payload, "statement": "write"},
             "invocation": invocation, "ordinal": ordinal, "time": self.clock}
        )
        if kind in ("result", "fault"):
            self.clock += 1
