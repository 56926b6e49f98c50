"""Bench: AWS seeded-exploration runs per second, this checkout against a baseline, in one run.

    python3 bench/aws_queue.py [--runs 150] [--rounds 3] [--baseline 9b0d70c] [--seed bench] [--max-faults 2] [--smoke]

On corpus/planted-bugs/aws-sqs-duplicate-write's fixed twin (an idempotent consumer, so
no violation stops exploration), with ``maxFaultsPerRun`` set to ``--max-faults`` (at the
case's own 1, today's engine runs every one of its 21 distinct schedules and stops after
about 23 runs, which would time a short check against a long one), each round runs one check
for the baseline and one for this checkout, alternately, each in its own process with
that checkout's packages (the baseline from a temporary ``git worktree`` at
``--baseline``, removed afterwards). A check's rate is the platform's runs (replays and
module-state runs included) over the wall time of ``check_scenario``; starting moto's
server and importing the handler happen before the timed part. Effects per second are
printed too: a run of today's platform does more than one of the baseline's (the implicit
SQS delete is an effect point that takes faults, so a run has more redeliveries), so runs
per second alone undersell it. Printed: each round's two rates, their medians, and the
ratio after/before of the medians; a check that exhausted its space before ``--runs``
is refused, not timed (raise ``--max-faults``). ``--smoke`` is the smallest size: one
check of this checkout alone, no baseline (a sandbox has no git history), only to
show the script still runs (CI runs it, asserting nothing of its figures).
Alternating keeps a drifting machine from favouring either side. The temporary worktree is
removed on the way out, on Ctrl-C and on SIGTERM too.

``--child ROOT`` is the measuring process itself (one check, one JSON line out).
Wall time is used here only to report speed; no verdict depends on it.
"""

from __future__ import annotations

import argparse
import json
import signal
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


def child(root: Path, runs: int, seed: str, max_faults: int) -> None:
    for package in PACKAGES:
        sys.path.insert(0, str(root / "packages" / package / "src"))
    from eutaxy.aws import create_platform, load_scenario  # noqa: PLC0415 - in the child, after its sys.path names the checkout
    from eutaxy.engine.check import check_scenario  # noqa: PLC0415 - in the child, after its sys.path names the checkout

    scenario = load_scenario(str(root / CASE))
    scenario["bounds"]["maxFaultsPerRun"] = max_faults
    platform = _Counting(create_platform(scenario))
    try:
        started = time.perf_counter()
        verdict = check_scenario(scenario, platform, seed=seed, max_runs=runs, budget_ms=BUDGET_MS)
        elapsed = time.perf_counter() - started
    finally:
        platform.close()
    print(json.dumps({"verdict": verdict["kind"], "runs": platform.runs, "effects": platform.effects, "seconds": elapsed,
                      "completed": verdict["provenance"].get("completed", False)}))


class _Counting:
    """The platform, counting its runs (replays and module-state runs included) and their effects."""

    def __init__(self, platform) -> None:
        self._platform = platform
        self.runs = 0
        self.effects = 0

    def run(self, plan):
        self.runs += 1
        result = self._platform.run(plan)
        self.effects += sum(1 for effect in result.to_data()["effects"] if effect["kind"] != "snapshot")
        return result

    def __getattr__(self, name):
        return getattr(self._platform, name)


def measure(root: Path, runs: int, seed: str, max_faults: int) -> tuple[float, float]:
    """(runs per second, effects per second) of one check in a process of its own."""
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(root), "--runs", str(runs), "--seed", seed, "--max-faults", str(max_faults)],
        check=True, capture_output=True, text=True,
    ).stdout
    answer = json.loads(out.strip().splitlines()[-1])
    if answer["verdict"] != "bounded":
        raise SystemExit(f"{root}: the fixed twin came out {answer['verdict']}, not bounded")
    if answer.get("completed") or answer["runs"] < runs:
        raise SystemExit(f"{root}: the check exhausted its space after {answer['runs']} runs, before --runs {runs}; raise --max-faults")
    return answer["runs"] / answer["seconds"], answer["effects"] / answer["seconds"]


def _stop(signum, frame) -> None:
    # SIGTERM and SIGHUP unwind like Ctrl-C, so the worktree is removed and the child stopped.
    raise SystemExit(128 + signum)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", default="9b0d70c", help="the commit to compare with (before this issue's work)")
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--max-faults", type=int, default=2, help="maxFaultsPerRun for both checks")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--smoke", action="store_true", help="the smallest size (CI's smoke run): --runs 5, this checkout alone")
    args = parser.parse_args()
    if args.child is not None:
        child(args.child, args.runs, args.seed, args.max_faults)
        return
    if args.smoke:
        rate = measure(ROOT, 5, args.seed, args.max_faults)
        print(f"this checkout alone (a smoke run: no baseline): {rate[0]:.1f} runs/s ({rate[1]:.0f} effects/s) over 5 runs, space not exhausted")
        return
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGHUP, _stop)
    with tempfile.TemporaryDirectory(prefix="eutaxy-bench-") as folder:
        baseline = Path(folder) / "baseline"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(baseline), args.baseline], check=True, capture_output=True)
        try:
            before, after = [], []
            for index in range(args.rounds):
                before.append(measure(baseline, args.runs, args.seed, args.max_faults))
                after.append(measure(ROOT, args.runs, args.seed, args.max_faults))
                print(
                    f"round {index + 1}: before {before[-1][0]:.1f} runs/s ({before[-1][1]:.0f} effects/s), "
                    f"after {after[-1][0]:.1f} runs/s ({after[-1][1]:.0f} effects/s)", flush=True,
                )
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(baseline)], check=False, capture_output=True)
    for unit, column in (("runs/s", 0), ("effects/s", 1)):
        b = statistics.median(rate[column] for rate in before)
        a = statistics.median(rate[column] for rate in after)
        print(f"median: before ({args.baseline}) {b:.1f} {unit}, after {a:.1f} {unit}, after/before {a / b:.2f}")


if __name__ == "__main__":
    main()
