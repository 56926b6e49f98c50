"""Bench: runs per second with maxConcurrentInvocations 2 against 1, on one scenario.

    python3 bench/cloudflare_concurrency.py [--runs 200] [--rounds 5] [--seed bench] [--smoke]

The scenario is corpus/planted-bugs/refund-lost-update's fixed twin (two refunds
of one order over the http drive, a conditional write; BOUNDED, so every run
completes). One platform (one Node host, one workerd) performs both: the same
scenario with ``maxConcurrentInvocations`` 1 (sequential, fault decisions only)
and 2 (the turn scheduler: a turn decision and at least one real event-loop turn
per effect). Seeded plans as exploration draws them, run ``i`` taking the turn
stream ``turns/i``; the two settings alternate in ``--rounds`` rounds of
``--runs`` runs each, so drift hits both alike. Printed: runs per second of each
(the median round) and their ratio (concurrent over sequential). The plans are drawn
from the run index alone and none is skipped as a repeat, so no exploration can run
out of schedules before the timing ends: every round performs exactly ``--runs`` runs.
The scenario's bounds are resolved as a check resolves them (``with_bounds``: the
runtime asserts every plan carries them). ``--smoke`` is the smallest size (CI runs it,
asserting nothing of its figures).

Wall time is used here only to report speed; no verdict depends on it.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for package in ("spec", "core", "engine", "cloudflare"):
    sys.path.insert(0, str(ROOT / "packages" / package / "src"))

from eutaxy.cloudflare import create_platform, load_scenario  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.engine.bounds import resolve_bounds, with_bounds  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.engine.plans import seeded_plan  # noqa: E402 - after the checkout's packages go on sys.path

SCENARIO = ROOT / "corpus" / "planted-bugs" / "refund-lost-update" / "fixed" / "refund-lost-update-fixed.sim.py"

#: Runs of each setting before timing starts (the isolate's JIT, SQLite's page cache).
WARMUP = 20


def with_concurrency(scenario: dict, concurrency: int) -> dict:
    changed = copy.deepcopy(scenario)
    changed["bounds"]["maxConcurrentInvocations"] = concurrency
    return with_bounds(changed, resolve_bounds(changed))


def timed_round(platform, scenario: dict, seed: str, first: int, runs: int) -> float:
    """Runs per second over ``runs`` seeded plans starting at run index ``first``."""
    started = time.perf_counter()
    for index in range(first, first + runs):
        result = platform.run(seeded_plan(scenario, seed, index, {}, 0, max_short_batches=0))
        assert result.end.kind == "completed", result.end
    return runs / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="runs per round and setting")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds")
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--smoke", action="store_true", help="the smallest size (CI's smoke run): --runs 3 --rounds 1")
    args = parser.parse_args()
    if args.smoke:
        args.runs, args.rounds = 3, 1
    base = load_scenario(SCENARIO)
    settings = {1: with_concurrency(base, 1), 2: with_concurrency(base, 2)}
    platform = create_platform(base)
    try:
        for scenario in settings.values():
            timed_round(platform, scenario, args.seed, 0, WARMUP)
        rates: dict[int, list[float]] = {1: [], 2: []}
        for round_index in range(args.rounds):
            for concurrency, scenario in settings.items():
                rates[concurrency].append(timed_round(platform, scenario, args.seed, round_index * args.runs, args.runs))
    finally:
        platform.close()
    sequential = statistics.median(rates[1])
    concurrent = statistics.median(rates[2])
    print(f"scenario: {base['name']} ({len(base['drive']['events'])} requests), {args.rounds} rounds of {args.runs} runs "
          "of each setting (seeded plans by run index, none skipped as a repeat)")
    print(f"maxConcurrentInvocations 1: {sequential:.1f} runs/s")
    print(f"maxConcurrentInvocations 2: {concurrent:.1f} runs/s")
    print(f"ratio (2 over 1): {concurrent / sequential:.2f}")


if __name__ == "__main__":
    main()
