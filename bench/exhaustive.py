"""Bench: exhaustive schedules per second, with and without prefix sharing (toy) and on workerd.

    python3 bench/exhaustive.py [--toy-runs 40000] [--workerd-runs 150] [--aws-runs 150] [--rounds 3] [--smallest] [--no-workerd] [--no-aws]

Toy platform (packages/engine/tests/toyplatform.py, pure Python): the enumeration of three
events of three effects each on one target with up to two faults (265 650 schedules), capped at
``--toy-runs`` runs so it never completes while timed. The same enumeration runs on a toy that
starts each run from a checkpoint of an earlier one (engine/checkpoints.py) and on one that
runs every plan from the reset, alternating in ``--rounds`` rounds; each check's CPU time is
split into the platform's (its ``run``) and the engine's (the rest). Printed per setting: the
median round's schedules per second, platform seconds and loop steps, and the ratios
(sharing over reset).

workerd: ``--exhaustive`` on corpus/planted-bugs/agent-room-lost-update's fixed twin (two
WebSocket connections to one Agents SDK room, one fault per run: 349 schedules), capped at
``--workerd-runs`` runs so it does not complete either, after a warm-up check. Printed: the
schedules per second, the share of the time spent in the platform's ``run`` (one host request
per schedule: Python to the Node host to workerd and back), a no-op ``probe`` request's round
trip, which is the floor of that request, and a bare ``reset`` request's (the bindings' reset a
run starts with) after a run of the last plan. workerd shares no prefix (docs/engine.md).

AWS: ``--exhaustive`` on corpus/planted-bugs/aws-sqs-duplicate-write's fixed twin at
``maxFaultsPerRun`` 2, capped at ``--aws-runs`` runs, the platform in this process (moto's
DynamoDB in process) so that the tables' reset each run starts with can be timed apart: the
schedules per second, the time a run takes and a bare reset's. AWS shares no prefix either (docs/engine.md).

``--smallest`` runs every part at its smallest size (a smoke run: two events, a few runs).
Wall and CPU time are used only to report speed; no verdict depends on them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for package in ("spec", "core", "engine", "cloudflare", "aws"):
    sys.path.insert(0, str(ROOT / "packages" / package / "src"))
sys.path.insert(0, str(ROOT / "packages" / "engine" / "tests"))

from eutaxy.engine.bounds import resolve_bounds  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.engine.exhaustive import explore_exhaustive  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.engine.session import Session  # noqa: E402 - after the checkout's packages go on sys.path
from toyplatform import ToyPlatform, count_scenario  # noqa: E402 - after the engine's tests go on sys.path

AWS_TWIN = ROOT / "corpus" / "planted-bugs" / "aws-sqs-duplicate-write" / "fixed" / "aws-sqs-duplicate-write.sim.py"
AGENT_ROOM = ROOT / "corpus" / "planted-bugs" / "agent-room-lost-update" / "fixed" / "agent-room-lost-update-fixed.sim.py"


class _Timed:
    """A platform whose ``run`` (and ``run_shared``) add up their CPU (process) and wall time and
    keep the last plan; everything else is the platform's own."""

    def __init__(self, platform) -> None:
        self.platform = platform
        self.cpu = 0.0
        self.wall = 0.0
        self.last = None
        if hasattr(platform, "run_shared"):
            self.run_shared = lambda plan: self._timed(platform.run_shared, plan)

    def _timed(self, run, plan):
        self.last = plan
        cpu, wall = time.process_time(), time.perf_counter()
        try:
            return run(plan)
        finally:
            self.cpu += time.process_time() - cpu
            self.wall += time.perf_counter() - wall

    def run(self, plan):
        return self._timed(self.platform.run, plan)

    def __getattr__(self, name):
        return getattr(self.platform, name)


def toy_round(scenario: dict, runs: int, *, share: bool) -> dict:
    platform = ToyPlatform(record=False, share=share)
    timed = _Timed(platform)
    session = Session(
        platform=timed, scenario=scenario, seed="bench", bounds=resolve_bounds(scenario, max_runs=runs), clock_ms=lambda: 0, keep_first=0
    )
    started = time.process_time()
    outcome = explore_exhaustive(session)
    cpu = time.process_time() - started
    exhaustive = outcome.exhaustive
    assert exhaustive is not None and not exhaustive["completed"], "the enumeration completed while timed: raise the size"
    return {"schedules": exhaustive["schedules"], "rate": exhaustive["schedules"] / cpu, "platform": timed.cpu, "cpu": cpu, "steps": platform.steps}


def bench_toy(args) -> None:
    if args.smallest:
        scenario, runs = count_scenario(events=2, effects=2, faults=1), 20
    else:
        scenario, runs = count_scenario(events=3, effects=3, faults=2), args.toy_runs
    rounds: dict[bool, list[dict]] = {True: [], False: []}
    for _ in range(args.rounds):
        for share in (False, True):
            rounds[share].append(toy_round(scenario, runs, share=share))
    median = {share: {key: statistics.median(r[key] for r in rounds[share]) for key in rounds[share][0]} for share in rounds}
    k, n = len(scenario["drive"]["events"]), scenario["toy"]["effects"]
    print(f"toy: {k} events x {n} effects on one target, up to {scenario['bounds']['maxFaultsPerRun']} faults; "
          f"{args.rounds} rounds of {runs} runs (the enumeration not completed), CPU time, medians")
    for share, name in ((False, "from the reset  "), (True, "prefix sharing  ")):
        m = median[share]
        print(f"  {name}: {m['rate']:.0f} schedules/s, platform {m['platform']:.2f} s of {m['cpu']:.2f} s, {m['steps']:.0f} loop steps")
    shared, fresh = median[True], median[False]
    print(f"  ratios (sharing over reset): schedules/s {shared['rate'] / fresh['rate']:.2f}, "
          f"platform time {shared['platform'] / fresh['platform']:.2f}, loop steps {shared['steps'] / fresh['steps']:.2f}")


def bench_workerd(args) -> None:
    from eutaxy.cloudflare import create_platform
    from eutaxy.cloudflare.differential import CloudflareRawSide
    from eutaxy.engine.check import check_scenario
    from eutaxy.engine.scenario_file import import_scenario

    runs = 3 if args.smallest else args.workerd_runs
    scenario = import_scenario(AGENT_ROOM)
    with create_platform(scenario) as platform:
        check_scenario(scenario, platform, seed="bench", exhaustive=True, max_runs=min(runs, 20), budget_ms=600_000, module_state_runs=0)
        host = platform._host
        probes = []
        for _ in range(5 if args.smallest else 50):
            started = time.perf_counter()
            answer = host.request({"op": "probe"}, timeout_s=30)
            probes.append(time.perf_counter() - started)
            assert answer.get("ok"), answer
        timed = _Timed(platform)
        started = time.perf_counter()
        verdict = check_scenario(scenario, timed, seed="bench", exhaustive=True, max_runs=runs, budget_ms=600_000, module_state_runs=0)
        wall = time.perf_counter() - started
        in_runs = timed.wall
        # What a run's reset alone costs (the binding records' reset, as a run's setup does it,
        # right after a run, in one host request): timed beside a probe, as bench/cloudflare_twins.py does.
        raw = CloudflareRawSide(scenario, lambda: platform._host)
        resets = []
        for _ in range(3 if args.smallest else 30):
            platform.run(timed.last)
            started = time.perf_counter()
            raw.reset()
            resets.append(time.perf_counter() - started)
    exhaustive = verdict["exhaustive"]
    assert "bounded" == verdict["kind"] and not exhaustive["completed"], verdict.get("exhaustive")
    schedules = exhaustive["schedules"]
    print(f"workerd: {scenario['name']} --exhaustive, {verdict['provenance']['runs']} runs capped (the enumeration not completed)")
    print(f"  {schedules / wall:.1f} schedules/s ({schedules} schedules in {wall:.2f} s wall); "
          f"{in_runs / wall:.0%} of it in the platform's run, {in_runs / verdict['provenance']['runs'] * 1000:.1f} ms a run; "
          f"probe round trip median {statistics.median(probes) * 1000:.2f} ms")
    print(f"  a bare reset after a run: median {statistics.median(resets) * 1000:.1f} ms (round trip included)")


def bench_aws(args) -> None:
    from eutaxy.aws import load_scenario
    from eutaxy.aws.platform import AwsPlatform, steps_of
    from eutaxy.engine.check import check_scenario

    runs = 3 if args.smallest else args.aws_runs
    scenario = load_scenario(str(AWS_TWIN))
    scenario["bounds"]["maxFaultsPerRun"] = 2
    with AwsPlatform.start(scenario) as platform:
        check_scenario(scenario, platform, seed="bench", exhaustive=True, max_runs=min(runs, 10), budget_ms=600_000, module_state_runs=0)
        timed = _Timed(platform)
        started = time.perf_counter()
        verdict = check_scenario(scenario, timed, seed="bench", exhaustive=True, max_runs=runs, budget_ms=600_000, module_state_runs=0)
        wall = time.perf_counter() - started
        # The tables' reset a run starts with, alone, right after a run of the last plan.
        tables = steps_of(list(scenario.get("setup") or ()), "dynamodb_table")
        resets = []
        for _ in range(3 if args.smallest else 30):
            platform.run(timed.last)
            started = time.perf_counter()
            platform.tables.reset(tables)
            resets.append(time.perf_counter() - started)
    exhaustive = verdict["exhaustive"]
    assert "bounded" == verdict["kind"] and not exhaustive["completed"], verdict.get("exhaustive")
    schedules = exhaustive["schedules"]
    print(f"aws: {scenario['name']} (fixed) --exhaustive at maxFaultsPerRun 2, in the checker's process, "
          f"{verdict['provenance']['runs']} runs capped (the enumeration not completed)")
    print(f"  {schedules / wall:.1f} schedules/s ({schedules} schedules in {wall:.2f} s wall); "
          f"{wall / verdict['provenance']['runs'] * 1000:.1f} ms a run, of which a bare reset of the tables takes "
          f"{statistics.median(resets) * 1000:.1f} ms (median)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--toy-runs", type=int, default=40_000, help="toy runs per round and setting")
    parser.add_argument("--workerd-runs", type=int, default=150, help="workerd runs timed")
    parser.add_argument("--aws-runs", type=int, default=150, help="AWS runs timed")
    parser.add_argument("--rounds", type=int, default=3, help="alternating toy rounds")
    parser.add_argument("--smallest", "--smoke", action="store_true", help="every part at its smallest size (a smoke run; CI runs it)")
    parser.add_argument("--no-workerd", action="store_true", help="no workerd part")
    parser.add_argument("--no-aws", action="store_true", help="no AWS part")
    args = parser.parse_args()
    if args.smallest:
        args.rounds = 1
    bench_toy(args)
    if not args.no_workerd:
        bench_workerd(args)
    if not args.no_aws:
        bench_aws(args)


if __name__ == "__main__":
    main()
