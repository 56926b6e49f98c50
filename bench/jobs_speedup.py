"""Bench: the speed-up of ``eutaxy check --jobs 2`` over ``--jobs 1``, measured in one run.

    python3 bench/jobs_speedup.py [--runs 300] [--rounds 3] [--messages 20] [--max-faults 3] [--seed bench] [--smoke]

The twin: corpus/planted-bugs/queue-duplicate-write's fixed twin (an idempotent consumer,
so the check is BOUNDED and performs every one of ``--runs``), copied into a temporary
folder with its drive grown to ``--messages`` messages and ``maxFaultsPerRun`` set to
``--max-faults``, so the space is far larger than ``--runs`` and exploration never completes
before the run cap ends it (the script checks: ``provenance.runs`` is ``--runs`` and
``maxRuns`` is among the bounds reached).

Each round runs the whole command, ``eutaxy check <twin> --max-runs R --json --jobs J``, as
a process of its own, ``--jobs 1`` then ``--jobs 2`` (platform starts included: a second
job's Node host starts after the first run, in the timed part). Per command it records the
wall time, the CPU time of the command's whole process tree (Python, the Node hosts and
their workerd, from the kernel's accounting of reaped children) and the machine's busy CPU
over the same interval (``/proc/stat``), so a speed-up below the cores given can be read:
``cores used`` is the tree's CPU over wall time, ``machine busy`` all processes' CPU over
wall time, and what is left of the machine's cores is what the other processes took. Both
commands' JSON must be byte-identical (the script fails otherwise).

Printed: each round's figures, the medians, and the speed-up (median wall of ``--jobs 1``
over that of ``--jobs 2``, and each round's ratio). Wall time is used only to report speed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TWIN = ROOT / "corpus" / "planted-bugs" / "queue-duplicate-write" / "fixed"
#: Long enough that only --max-runs ends the exploration.
BUDGET_MS = 3_600_000


def write_twin(folder: Path, messages: int, max_faults: int) -> Path:
    """The fixed twin with ``messages`` messages and ``max_faults`` faults per run, in ``folder``."""
    for name in ("worker.ts", "wrangler.jsonc", "schema.sql"):
        shutil.copy(TWIN / name, folder / name)
    source = (TWIN / "queue-duplicate-write-fixed.sim.py").read_text(encoding="utf-8")
    events = """    [
        {"body": {"orderId": "o-1", "amountCents": 1200}},
        {"body": {"orderId": "o-2", "amountCents": 500}},
    ],"""
    assert events in source and '"maxFaultsPerRun": 1' in source, "the twin changed: update write_twin"
    source = source.replace(events, f'    [{{"body": {{"orderId": f"o-{{i}}", "amountCents": 100 * i}}}} for i in range(1, {messages + 1})],')
    source = source.replace('"maxFaultsPerRun": 1', f'"maxFaultsPerRun": {max_faults}')
    path = folder / "jobs-bench-twin.sim.py"
    path.write_text(source, encoding="utf-8")
    return path


def _machine_ticks() -> tuple[int, int]:
    """(busy, total) clock ticks of every CPU since boot, from the first line of /proc/stat."""
    with open("/proc/stat", encoding="ascii") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields) - idle, sum(fields)


def run_check(twin: Path, runs: int, jobs: int, seed: str) -> dict:
    """One whole ``eutaxy check`` command: its JSON, wall seconds, tree CPU seconds, machine busy CPU seconds."""
    environment = dict(os.environ)
    sources = [str(path) for path in sorted((ROOT / "packages").glob("*/src"))]
    environment["PYTHONPATH"] = os.pathsep.join(sources + [environment.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    command = [
        sys.executable, "-m", "eutaxy.cli", "check", str(twin), "--seed", seed, "--max-runs", str(runs),
        "--budget-ms", str(BUDGET_MS), "--json", "--no-regression", "--jobs", str(jobs),
    ]
    busy_before, _ = _machine_ticks()
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment)
    out, err = process.communicate()
    wall = time.monotonic() - started
    busy_after, _ = _machine_ticks()
    verdict = json.loads(out)
    provenance = verdict["provenance"]
    assert verdict["kind"] == "bounded", (verdict["kind"], err.decode()[-2000:])
    assert provenance["runs"] == runs and "maxRuns" in provenance["boundsReached"], provenance
    return {"json": out, "wall": wall, "machine": (busy_after - busy_before) / os.sysconf("SC_CLK_TCK")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=300, help="--max-runs of each check (every one performed)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, each --jobs 1 then --jobs 2")
    parser.add_argument("--messages", type=int, default=20, help="messages in the twin's drive")
    parser.add_argument("--max-faults", type=int, default=3, help="the twin's maxFaultsPerRun")
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--smoke", action="store_true", help="the smallest size (CI's smoke run, bench/test_bench_smoke.py): --runs 5 --rounds 1")
    args = parser.parse_args()
    if args.smoke:
        args.runs, args.rounds = 5, 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    with tempfile.TemporaryDirectory(prefix="eutaxy-jobs-bench-") as folder:
        twin = write_twin(Path(folder), args.messages, args.max_faults)
        print(f"twin: queue-duplicate-write-fixed with {args.messages} messages, maxFaultsPerRun {args.max_faults}; "
              f"{args.runs} runs per check (all performed), seed {args.seed!r}; {cores} cores; load average "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print("round  jobs   wall s   runs/s   tree CPU s   cores used   machine busy (cores)")
        figures: dict[int, list[dict]] = {1: [], 2: []}
        for round_index in range(1, args.rounds + 1):
            for jobs in (1, 2):
                tree_before = os.times()
                measured = run_check(twin, args.runs, jobs, args.seed)
                tree_after = os.times()
                measured["cpu"] = (tree_after.children_user - tree_before.children_user) + (
                    tree_after.children_system - tree_before.children_system
                )
                figures[jobs].append(measured)
                print(f"{round_index:5}  {jobs:4}  {measured['wall']:7.2f}  {args.runs / measured['wall']:7.1f}  "
                      f"{measured['cpu']:11.2f}  {measured['cpu'] / measured['wall']:11.2f}  "
                      f"{measured['machine'] / measured['wall']:21.2f}")
            assert figures[1][-1]["json"] == figures[2][-1]["json"], "--jobs 2 gave other JSON than --jobs 1"
        print("JSON: byte-identical between --jobs 1 and --jobs 2 in every round")
        walls = {jobs: statistics.median(one["wall"] for one in figures[jobs]) for jobs in (1, 2)}
        for jobs in (1, 2):
            cpu = statistics.median(one["cpu"] for one in figures[jobs])
            busy = statistics.median(one["machine"] / one["wall"] for one in figures[jobs])
            print(f"median --jobs {jobs}: {walls[jobs]:.2f} s wall, {args.runs / walls[jobs]:.1f} runs/s, "
                  f"{cpu:.2f} s CPU ({cpu / walls[jobs]:.2f} cores), machine busy {busy:.2f} of {cores} cores")
        ratios = [one["wall"] / two["wall"] for one, two in zip(figures[1], figures[2])]
        print(f"speed-up of --jobs 2 over --jobs 1: {walls[1] / walls[2]:.2f}x (medians); "
              f"per round {', '.join(f'{ratio:.2f}x' for ratio in ratios)}")


if __name__ == "__main__":
    main()
