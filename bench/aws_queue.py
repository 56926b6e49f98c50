"""Bench: AWS seeded-exploration runs per second, this checkout against a baseline, in one run.

    python3 bench/aws_queue.py [--runs 150] [--rounds 3] [--baseline 9b0d70c] [--seed bench]

On corpus/planted-bugs/aws-sqs-duplicate-write's fixed twin (an idempotent consumer, so
exploration never stops early and performs all of ``--runs``), each round runs one check
for the baseline and one for this checkout, alternately, each in its own process with
that checkout's packages (the baseline from a temporary ``git worktree`` at
``--baseline``, removed afterwards). A check's rate is the platform's runs (replays and
module-state runs included) over the wall time of ``check_scenario``; starting moto's
server and importing the handler happen before the timed part. Printed: each round's two
rates, their medians, and the ratio after/before of the medians. Alternating keeps a
drifting machine from favouring either side.

``--child ROOT`` is the measuring process itself (one check, one JSON line out).
Wall time is used here only to report speed; no verdict depends on it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASE = Path("corpus") / "planted-bugs" / "aws-sqs-duplicate-write" / "fixed" / "aws-sqs-duplicate-write.sim.py"
#: Long enough that only --runs ends the exploration.
BUDGET_MS = 3_600_000
PACKAGES = ("spec", "core", "engine", "aws")


def child(root: Path, runs: int, seed: str) -> None:
    for package in PACKAGES:
        sys.path.insert(0, str(root / "packages" / package / "src"))
    from eutaxy.aws import create_platform, load_scenario  # noqa: PLC0415
    from eutaxy.engine.check import check_scenario  # noqa: PLC0415

    scenario = load_scenario(str(root / CASE))
    platform = _Counting(create_platform(scenario))
    try:
        started = time.perf_counter()
        verdict = check_scenario(scenario, platform, seed=seed, max_runs=runs, budget_ms=BUDGET_MS)
        elapsed = time.perf_counter() - started
    finally:
        platform.close()
    print(json.dumps({"verdict": verdict["kind"], "runs": platform.runs, "seconds": elapsed}))


class _Counting:
    """The platform, counting its runs (replays and module-state runs included)."""

    def __init__(self, platform) -> None:
        self._platform = platform
        self.runs = 0

    def run(self, plan):
        self.runs += 1
        return self._platform.run(plan)

    def __getattr__(self, name):
        return getattr(self._platform, name)


def measure(root: Path, runs: int, seed: str) -> float:
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(root), "--runs", str(runs), "--seed", seed],
        check=True, capture_output=True, text=True,
    ).stdout
    answer = json.loads(out.strip().splitlines()[-1])
    if answer["verdict"] != "bounded":
        raise SystemExit(f"{root}: the fixed twin came out {answer['verdict']}, not bounded")
    return answer["runs"] / answer["seconds"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", default="9b0d70c", help="the commit to compare with (before this issue's work)")
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child, args.runs, args.seed)
        return
    with tempfile.TemporaryDirectory(prefix="eutaxy-bench-") as folder:
        baseline = Path(folder) / "baseline"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(baseline), args.baseline], check=True, capture_output=True)
        try:
            before, after = [], []
            for index in range(args.rounds):
                before.append(measure(baseline, args.runs, args.seed))
                after.append(measure(ROOT, args.runs, args.seed))
                print(f"round {index + 1}: before {before[-1]:.1f} runs/s, after {after[-1]:.1f} runs/s")
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(baseline)], check=False, capture_output=True)
    b, a = statistics.median(before), statistics.median(after)
    print(f"median: before ({args.baseline}) {b:.1f} runs/s, after {a:.1f} runs/s, after/before {a / b:.2f}")


if __name__ == "__main__":
    main()
