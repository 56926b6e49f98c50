"""Bench: seeded-exploration runs per second on a queue Worker, and the proxies' cost over raw.

    python3 bench/cloudflare_queue.py [--runs 300] [--samples 200] [--seed bench]

Two numbers, both on corpus/planted-bugs/queue-duplicate-write's fixed twin (an
idempotent consumer, so exploration never stops early and performs all of
``--runs``):

1. Seeded exploration: ``check_scenario`` with ``max_runs=--runs`` and a budget
   that never ends it first; printed as runs per second (the platform's own count
   of runs the host performed, replays and module-state runs included) over the
   wall time of the check. Starting Node, bundling and starting workerd happen
   before the timed part (a check pays them once).
2. Proxied over raw: in one process and one Miniflare instance, ``--samples``
   fault-free runs through Eutaxy's proxies (a plan with no faults, through the
   platform) and as many raw runs (the handler on the unproxied bindings, the
   differential runner's raw side), alternated so drift hits both alike; the
   ratio of their median wall times. Both include the same JSON-lines round trip,
   D1 reset and snapshot, so the ratio is the cost of the proxies, the virtual
   globals and the queue drive over calling the handler directly.

Wall time is used here only to report speed; no verdict depends on it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for package in ("spec", "core", "engine", "cloudflare"):
    sys.path.insert(0, str(ROOT / "packages" / package / "src"))

from eutaxy.cloudflare import create_platform, load_scenario  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.cloudflare.differential import DifferentialRunner  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.engine.check import check_scenario  # noqa: E402 - after the checkout's packages go on sys.path

SCENARIO = ROOT / "corpus" / "planted-bugs" / "queue-duplicate-write" / "fixed" / "queue-duplicate-write-fixed.sim.py"

#: Long enough that only --runs ends the exploration.
BUDGET_MS = 3_600_000

#: Runs of each kind before timing starts (the isolate's JIT, SQLite's page cache).
WARMUP = 20


def exploration(scenario: dict, runs: int, seed: str) -> None:
    platform = create_platform(scenario)
    try:
        started = time.perf_counter()
        verdict = check_scenario(scenario, platform, seed=seed, max_runs=runs, budget_ms=BUDGET_MS)
        elapsed = time.perf_counter() - started
    finally:
        platform.close()
    explored = verdict["provenance"]["runs"]
    print(f"seeded exploration: {verdict['kind']}, {explored} runs explored, {platform.runs} host runs "
          f"in {elapsed:.2f}s: {platform.runs / elapsed:,.0f} runs/s ({explored / elapsed:,.0f} explored runs/s)")


def proxied_over_raw(scenario: dict, samples: int, seed: str) -> None:
    with DifferentialRunner(scenario) as runner:
        outcome = runner.run(seed=seed)
        if not outcome.agree:
            raise SystemExit(f"the proxied and raw runs disagree, so timing them compares different work: {outcome.differences}")
        for _ in range(WARMUP):
            runner.proxied(seed=seed)
            runner.raw()
        proxied, raw = [], []
        for _ in range(samples):
            started = time.perf_counter()
            runner.proxied(seed=seed)
            proxied.append(time.perf_counter() - started)
            started = time.perf_counter()
            runner.raw()
            raw.append(time.perf_counter() - started)
    p, r = statistics.median(proxied), statistics.median(raw)
    print(f"proxied fault-free run: median {p * 1000:.2f} ms over {samples} runs")
    print(f"raw handler run:        median {r * 1000:.2f} ms over {samples} runs")
    print(f"proxied/raw ratio: {p / r:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300, help="max_runs of the seeded exploration")
    parser.add_argument("--samples", type=int, default=200, help="timed runs of each kind for the ratio")
    parser.add_argument("--seed", default="bench")
    args = parser.parse_args()
    scenario = load_scenario(SCENARIO)
    exploration(scenario, args.runs, args.seed)
    proxied_over_raw(scenario, args.samples, args.seed)


if __name__ == "__main__":
    main()
