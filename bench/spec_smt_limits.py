"""Bench: the share of properties the SMT engine decides at each step limit, and what each limit costs.

    python3 bench/spec_smt_limits.py [--limits 1000000,4000000,16000000,64000000] [--deadline 60] [--smoke]

For each step limit (Z3's rlimit, ``--prover-steps``) the engine is asked,
uncached, for every property of corpus/prover-contracts and of
corpus/prover-money (everyday money code, every claim true), and prints per
corpus the properties decided (PROVEN or REFUTED), those that gave up at the
limit, those stopped at the wall-clock deadline, and the engine's wall time
(translation, the solver's child process, model replay). Reading the spec files
and starting Node are outside the timed part. Wall time is reported only; the
step limit, not the clock, decides every answer counted as decided.
``--smoke`` is the smallest size: one limit (1,000,000), the first two properties of
the first spec file of each corpus, a 20 s deadline, only to show the script still runs (CI runs it, asserting
nothing of its figures).
Needs the pinned Z3 (`eutaxy prover install smt`, or the z3-solver wheel on the path).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(src) for src in sorted((ROOT / "packages").glob("*/src"))]

from eutaxy.prover.engine import engine_answers  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.prover.evaluator import Evaluator  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.prover.reader import read_specs  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.prover.report import find_spec_files  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.prover_smt import SmtProver  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.cli.provers import node_toolchain  # noqa: E402 - importable only after the sys.path lines above

CORPORA = {"contracts": ROOT / "corpus" / "prover-contracts", "money": ROOT / "corpus" / "prover-money"}


def _outcome(answer) -> str:
    if answer.kind in ("proven", "refuted"):
        return "decided"
    if "deadline" in (answer.detail or ""):
        return "deadline"
    if answer.reasons and answer.reasons[0] == "gave_up":
        return "limit"
    return "not taken"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limits", default="1000000,4000000,16000000,64000000")
    parser.add_argument("--deadline", type=float, default=60.0)
    parser.add_argument("--smoke", action="store_true", help="the smallest size (CI's smoke run): --limits 1000000 --deadline 20, two properties of one spec file per corpus")
    args = parser.parse_args()
    if args.smoke:
        args.limits, args.deadline = "1000000", 20.0
    toolchain = node_toolchain()
    found = {name: find_spec_files(path)[:1] if args.smoke else find_spec_files(path) for name, path in CORPORA.items()}
    read = {name: (specs, read_specs(specs, toolchain)) for name, specs in found.items()}
    for limit in (int(x) for x in args.limits.split(",")):
        prover = SmtProver(cache_results=False, rlimit=limit, deadline_s=args.deadline)
        status = prover.available()
        if "version" not in status:
            sys.exit(f"spec_smt_limits: {status['unavailable']}")
        for name, (specs, modules) in read.items():
            counts, elapsed = Counter(), 0.0
            for spec, module in zip(specs, modules, strict=True):
                with Evaluator(spec, toolchain) as evaluator:
                    def replay(prop, encoded, evaluator=evaluator):
                        return evaluator.evaluate_encoded(prop, [list(encoded)])[0]

                    start = time.perf_counter()
                    answers = engine_answers(prover, module, module.properties[:2] if args.smoke else module.properties, replay)
                    elapsed += time.perf_counter() - start
                counts.update(_outcome(a) for a in answers.values())
            total = sum(counts.values())
            print(f"rlimit {limit:>11,} {name:<9} decided {counts['decided']:>2} of {total} "
                  f"({100 * counts['decided'] / total:.0f}%), gave up at the limit {counts['limit']}, "
                  f"stopped at the deadline {counts['deadline']}, not taken {counts['not taken']}; "
                  f"{elapsed:.1f} s", flush=True)


if __name__ == "__main__":
    main()
