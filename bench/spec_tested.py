"""Bench: distinct assignments the TESTED rung evaluates per second, on the corpus's true claim.

    python3 bench/spec_tested.py [--inside 20000] [--seed bench] [--repeat 3] [--baseline REV --rounds 3] [--smoke]

Runs the TESTED rung on corpus/prover-contracts/true_claim (decideRefund,
three number binders, a precondition relating two of them) with a large stop
count, and prints distinct assignments evaluated per second: Python drawing,
encoding and counting, plus the Node evaluator's round trips. Reading the spec
file and starting Node are outside the timed part (they are paid once per
spec file, not per assignment). Wall time is used here only to report speed;
no verdict depends on it.

With ``--baseline REV`` it measures this checkout against REV (a temporary
``git worktree``), one run of each per round, alternating, each in its own
process, and prints both medians and their ratio: the figure to quote, since a
busy machine weighs on both alike.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Every package: the toolchain is found by the CLI's one finder (eutaxy.cli.provers.node_toolchain).
sys.path[:0] = [str(src) for src in sorted((ROOT / "packages").glob("*/src"))]

from eutaxy.prover.evaluator import Evaluator  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.cli.provers import node_toolchain  # noqa: E402 - importable only after the sys.path lines above
from eutaxy.prover.reader import read_spec  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.prover.tested import run_tested  # noqa: E402 - after the checkout's packages go on sys.path

SPEC = ROOT / "corpus" / "prover-contracts" / "true_claim" / "domain.props.ts"


def _toolchain():
    """The one finder's toolchain: EUTAXY_NODE_MODULES, else the pinned one in Eutaxy's cache."""
    return node_toolchain()


def _rate(checkout: Path, inside: int, seed: str, env: dict[str, str]) -> float:
    """One run of a checkout's own bench in a fresh process: its best assignments per second."""
    done = subprocess.run([sys.executable, str(checkout / "bench" / "spec_tested.py"), "--inside", str(inside),
                           "--seed", seed, "--repeat", "1"], capture_output=True, text=True, check=True, cwd=checkout,
                          env=env)
    return float(re.search(r"best ([\d,]+)", done.stdout).group(1).replace(",", ""))


def compare(args) -> None:
    # An older checkout's bench may find Node only through the environment: name it for that child alone.
    toolchain = _toolchain()
    env = dict(os.environ, EUTAXY_NODE_MODULES=str(toolchain.node_modules), EUTAXY_NODE=str(toolchain.node))
    with tempfile.TemporaryDirectory(prefix="eutaxy-bench-") as tmp:
        baseline = Path(tmp) / "baseline"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(baseline), args.baseline],
                       check=True, capture_output=True)
        try:
            now, before = [], []
            for r in range(args.rounds):
                now.append(_rate(ROOT, args.inside, f"{args.seed}-{r}", env))
                before.append(_rate(baseline, args.inside, f"{args.seed}-{r}", env))
                print(f"round {r}: this checkout {now[-1]:,.0f}/s, {args.baseline} {before[-1]:,.0f}/s")
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(baseline)],
                           check=False, capture_output=True)
    a, b = statistics.median(now), statistics.median(before)
    print(f"median {a:,.0f} against {b:,.0f} distinct assignments per second: {a / b:.2f}x {args.baseline}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inside", type=int, default=20000, help="distinct assignments inside the claim to stop at")
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", help="a commit to measure this checkout against")
    parser.add_argument("--rounds", type=int, default=3, help="with --baseline: alternating runs of each")
    parser.add_argument("--smoke", action="store_true", help="the smallest size (CI's smoke run): --inside 200 --repeat 1, no baseline")
    args = parser.parse_args()
    if args.smoke:
        args.inside, args.repeat, args.baseline = 200, 1, None
    if args.baseline:
        compare(args)
        return
    toolchain = _toolchain()
    module = read_spec(SPEC, toolchain)
    prop = next(p for p in module.properties if p.name == "withinCaptured")
    rates = []
    with Evaluator(SPEC, toolchain) as evaluator:
        for attempt in range(args.repeat):
            start = time.perf_counter()
            result = run_tested(prop, evaluator, f"{args.seed}-{attempt}", max_inside=args.inside)
            elapsed = time.perf_counter() - start
            rate = result.evaluated / elapsed
            rates.append(rate)
            print(f"run {attempt}: {result.verdict.kind}, {result.evaluated} distinct evaluated "
                  f"({result.verdict.counts.get('tested')} inside, {result.draws} draws) in {elapsed:.2f}s: "
                  f"{rate:,.0f} assignments/s")
    print(f"best {max(rates):,.0f} distinct assignments evaluated per second")


if __name__ == "__main__":
    main()
