"""Bench: a Cloudflare check's start, from `eutaxy check` to its first run, and the whole check, cold and warm.

    python3 bench/cloudflare_start.py [--case queue-duplicate-write] [--rounds 5] [--seed 1] [--jobs N] [--smoke]

Each measured check is a new process running ``eutaxy check <case>.sim.py --seed S
--no-regression --json`` (the command a user types: the CLI's ``main``), timed from just
before the process is started. Inside it a thin wrapper notes, on the system's monotonic
clock, when the platform starts, when its Worker is loaded and when its first run answers;
the load's own answer says how long the bundle and workerd's start took and whether the
bundle came from the cache. Three settings, one check each per round, in turn:

- ``cold``: an empty bundle cache and an empty Node compile cache (a first check);
- ``warm``: both caches filled by an untimed check before the first round (every later check);
- ``off``: ``EUTAXY_BUNDLE_CACHE=off`` (no bundle cache, no compile cache): a check as it was
  before the caches.

Printed per setting, medians over the rounds: the whole check and the time to the first run
(both from the command), and the steps: Python's start and imports up to the platform's start,
the host's start up to the load's answer (split into Node's start, the bundle and workerd's
start), the first run, and the rest (exploration, shrinking, the report). The ratios
off/warm and cold/warm are taken round by round, in one run of this script, so a busy machine
weighs on both sides alike. Every check must print the same JSON (same seed, same bounds):
the script says whether they did. Python runs with its bytecode cached (in a temporary
folder), as an installed Eutaxy does, whatever PYTHONDONTWRITEBYTECODE says.

``--jobs N`` passes ``--jobs`` to the check (by default the CLI's own default: on two cores a
check that runs past its first run starts a second platform, whose start lands in "rest").
``--smoke`` (the same as ``--rounds 1``) is the smallest size: one check of each setting and
the warming one. Wall time is used here only to report speed; no verdict depends on it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("spec", "core", "engine", "cloudflare", "aws", "report", "prover", "prover_smt", "prover_lean", "cli")

#: Run in the measured process: notes the platform's start, its load and its first run, then runs the CLI.
WRAPPER = r"""
import json, sys, time
began = time.monotonic()
from eutaxy.cloudflare.platform import CloudflarePlatform
marks = {"python": began}
start, run = CloudflarePlatform.start, CloudflarePlatform.run
def timed_start(self):
    marks.setdefault("platform", time.monotonic())
    start(self)
    marks.setdefault("loaded", time.monotonic())
    marks.setdefault("report", self.start_report)
def timed_run(self, plan):
    result = run(self, plan)
    marks.setdefault("first_run", time.monotonic())
    return result
CloudflarePlatform.start, CloudflarePlatform.run = timed_start, timed_run
from eutaxy.cli.main import main
code = main(sys.argv[1:])
marks["done"] = time.monotonic()
sys.stderr.write("\nBENCH " + json.dumps(marks) + "\n")
sys.exit(code)
"""

SETTINGS = ("cold", "warm", "off")


def measure(scenario: Path, seed: str, environment: dict[str, str], jobs: int | None) -> tuple[dict, str]:
    """One check in a new process: its steps in seconds from the command, and its JSON."""
    command = [sys.executable, "-c", WRAPPER, "check", str(scenario), "--seed", seed, "--no-regression", "--json"]
    command += [] if jobs is None else ["--jobs", str(jobs)]
    began = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=600)
    ended = time.monotonic()
    line = next((text for text in done.stderr.splitlines() if text.startswith("BENCH ")), None)
    if line is None or done.returncode not in (0, 1):
        raise SystemExit(f"the check failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    marks = json.loads(line[len("BENCH "):])
    report = marks["report"]
    steps = {
        "whole": ended - began,
        "first_run": marks["first_run"] - began,
        "python": marks["platform"] - began,
        "host": marks["loaded"] - marks["platform"],
        "bundle": report["bundleMs"] / 1000,
        "workerd": report["workerdMs"] / 1000,
        "run1": marks["first_run"] - marks["loaded"],
        "rest": ended - marks["first_run"],
        "cached": report["bundle"] == "cached",
    }
    steps["node"] = steps["host"] - steps["bundle"] - steps["workerd"]
    return steps, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default="queue-duplicate-write", help="a planted bug under corpus/planted-bugs/")
    parser.add_argument("--rounds", type=int, default=5, help="checks of each setting (1: the smoke size)")
    parser.add_argument("--seed", default="1")
    parser.add_argument("--jobs", type=int, default=None, help="--jobs for the check (default: the CLI's)")
    parser.add_argument("--smoke", action="store_true", help="the smallest size: --rounds 1")
    args = parser.parse_args()
    if args.smoke:
        args.rounds = 1
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    scenario = ROOT / "corpus" / "planted-bugs" / args.case / f"{args.case}.sim.py"
    if not scenario.is_file():
        parser.error(f"no planted bug {args.case!r}: {scenario} is missing")
    with tempfile.TemporaryDirectory(prefix="eutaxy-bench-start-") as folder:
        base = dict(os.environ)
        base.pop("PYTHONDONTWRITEBYTECODE", None)
        base.pop("NODE_COMPILE_CACHE", None)
        base["PYTHONPYCACHEPREFIX"] = str(Path(folder) / "pyc")
        base["PYTHONPATH"] = os.pathsep.join(str(ROOT / "packages" / name / "src") for name in PACKAGES)
        warm = {**base, "EUTAXY_BUNDLE_CACHE": str(Path(folder) / "warm" / "bundles")}
        measure(scenario, args.seed, warm, args.jobs)  # fills the warm caches and Python's bytecode cache
        results: dict[str, list[dict]] = {setting: [] for setting in SETTINGS}
        outputs = set()
        for round_index in range(args.rounds):
            for setting in SETTINGS:
                if setting == "cold":
                    environment = {**base, "EUTAXY_BUNDLE_CACHE": str(Path(folder) / f"cold-{round_index}" / "bundles")}
                elif setting == "warm":
                    environment = warm
                else:
                    environment = {**base, "EUTAXY_BUNDLE_CACHE": "off"}
                steps, output = measure(scenario, args.seed, environment, args.jobs)
                results[setting].append(steps)
                outputs.add(output)
    jobs = "the CLI's default --jobs" if args.jobs is None else f"--jobs {args.jobs}"
    print(f"case {args.case}, seed {args.seed}, {jobs}, {args.rounds} round(s) of one check per setting; medians in seconds")
    print(f"{'setting':<6} {'whole':>6} {'to 1st run':>10} | {'python':>6} {'node':>6} {'bundle':>6} {'workerd':>7} "
          f"{'run 1':>6} {'rest':>6}  bundle")
    for setting in SETTINGS:
        rows = results[setting]
        median = {key: statistics.median(row[key] for row in rows) for key in rows[0] if key != "cached"}
        cached = sum(row["cached"] for row in rows)
        print(f"{setting:<6} {median['whole']:>6.3f} {median['first_run']:>10.3f} | {median['python']:>6.3f} {median['node']:>6.3f} "
              f"{median['bundle']:>6.3f} {median['workerd']:>7.3f} {median['run1']:>6.3f} {median['rest']:>6.3f}  "
              f"{cached}/{len(rows)} from the cache")
    for other in ("off", "cold"):
        for key, label in (("whole", "whole check"), ("first_run", "to the first run")):
            ratios = [slow[key] / fast[key] for slow, fast in zip(results[other], results["warm"])]
            print(f"{other}/warm {label}: {statistics.median(ratios):.2f}x (median of {len(ratios)} rounds)")
    print(f"same JSON from every check: {'yes' if len(outputs) == 1 else f'NO ({len(outputs)} different)'}")
    return 0 if len(outputs) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
