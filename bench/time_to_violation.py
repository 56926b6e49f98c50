"""Bench: runs and time to the first violation for every planted bug, median over 10 seeds.

    python3 bench/time_to_violation.py [--seeds 10] [--max-runs 500] [--bugs NAME,NAME] [--smoke]

For each buggy scenario under corpus/planted-bugs/ (the twins under fixed/ are left
out), one platform is started and reused for every seed (a check pays the start once;
it is timed apart); each seed's check is capped at ``--max-runs``. Printed per bug: the
median and the range of exploration runs to the first violation, and the median wall
time of the whole check (exploration, replay and shrinking), with the platform's start
time beside it. Seeds are ``bench-0`` … ``bench-<n-1>``. Wall time is used here only to
report speed; no verdict depends on it. ``--bugs`` keeps the named bugs only;
``--smoke`` is the smallest size (one Cloudflare and one AWS bug, one seed), only to show
the script still runs (CI runs it, asserting nothing of its figures).
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for package in ("spec", "core", "engine", "cloudflare", "aws"):
    sys.path.insert(0, str(ROOT / "packages" / package / "src"))

from eutaxy.engine.check import check_scenario  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.engine.scenario_file import import_scenario  # noqa: E402 - after the checkout's packages go on sys.path

#: Long enough that only the run cap or a violation ends a check.
BUDGET_MS = 3_600_000


def planted_bugs() -> list[Path]:
    return sorted(p for p in (ROOT / "corpus" / "planted-bugs").glob("*/*.sim.py"))


def measure(path: Path, seeds: int, max_runs: int) -> dict:
    scenario = import_scenario(path)
    started = time.perf_counter()
    platform = importlib.import_module(f"eutaxy.{scenario['platform']}").create_platform(scenario)
    start_s = time.perf_counter() - started
    runs, seconds, missed = [], [], 0
    try:
        for index in range(seeds):
            began = time.perf_counter()
            verdict = check_scenario(scenario, platform, seed=f"bench-{index}", max_runs=max_runs, budget_ms=BUDGET_MS)
            elapsed = time.perf_counter() - began
            if verdict["kind"] != "violated":
                missed += 1
                continue
            runs.append(verdict["provenance"]["runs"])
            seconds.append(elapsed)
    finally:
        platform.close()
    return {"runs": runs, "seconds": seconds, "missed": missed, "start_s": start_s}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--max-runs", type=int, default=500)
    parser.add_argument("--bugs", help="comma-separated planted bugs (scenario file names without .sim.py) to measure; all by default")
    parser.add_argument("--smoke", action="store_true", help="the smallest size (CI's smoke run): --seeds 1 --bugs queue-duplicate-write,aws-sqs-duplicate-write")
    args = parser.parse_args()
    if args.smoke:
        args.seeds, args.bugs = 1, "queue-duplicate-write,aws-sqs-duplicate-write"
    keep = set(args.bugs.split(",")) if args.bugs else None
    print(f"{'planted bug':<28} {'runs (median, range)':<22} {'check s (median)':<17} {'start s':<8} missed")
    for path in planted_bugs():
        if keep is not None and path.name.removesuffix(".sim.py") not in keep:
            continue
        m = measure(path, args.seeds, args.max_runs)
        name = path.parent.name
        if not m["runs"]:
            print(f"{name:<28} {'none found':<22} {'-':<17} {m['start_s']:<8.2f} {m['missed']}")
            continue
        runs = f"{statistics.median(m['runs']):g} ({min(m['runs'])}-{max(m['runs'])})"
        print(f"{name:<28} {runs:<22} {statistics.median(m['seconds']):<17.2f} {m['start_s']:<8.2f} {m['missed']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
