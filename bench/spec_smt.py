"""Bench: properties the SMT engine decides per second on the contract corpus, and the share it decides.

    python3 bench/spec_smt.py [--repeat 3] [--smoke]

Reads every spec file of corpus/prover-contracts once, then asks the SMT
engine (uncached) for every property, models replayed on the real functions
in the evaluator, and prints properties answered per second (the whole
engine: translation, Z3 within its rlimit, model replay) and the share decided
(PROVEN or REFUTED) against the share the TESTED rung alone leaves standing
(its verdict is not a decision: the engine gave up or did not take the
function). Reading and starting Node are outside the timed part. Wall time is
used only to report speed; no answer depends on it (Z3's budget is its rlimit).
``--smoke`` is the smallest size: one spec file (true_claim), one repeat, only to
show the script still runs (CI runs it, asserting nothing of its figures).
Needs the pinned Z3 (`eutaxy prover install smt`, or the z3-solver wheel on the path).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Every package: the toolchain is found by the CLI's one finder (eutaxy.cli.provers.node_toolchain).
sys.path[:0] = [str(src) for src in sorted((ROOT / "packages").glob("*/src"))]

from eutaxy.prover.engine import engine_answers  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.prover.evaluator import Evaluator  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.prover.reader import read_specs  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.prover.report import find_spec_files  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.prover_smt import SmtProver  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.cli.provers import node_toolchain  # noqa: E402 - importable only after the sys.path lines above

CORPUS = ROOT / "corpus" / "prover-contracts"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="the smallest size (CI's smoke run): one spec file, --repeat 1")
    args = parser.parse_args()
    toolchain = node_toolchain()
    specs = find_spec_files(CORPUS)
    if args.smoke:
        args.repeat, specs = 1, [spec for spec in specs if spec.parent.name == "true_claim"]
    modules = read_specs(specs, toolchain)
    prover = SmtProver(cache_results=False)
    status = prover.available()
    if "version" not in status:
        sys.exit(f"spec_smt: {status['unavailable']}")
    rates, kinds = [], Counter()
    for attempt in range(args.repeat):
        answered, elapsed = 0, 0.0
        kinds = Counter()
        for spec, module in zip(specs, modules):
            with Evaluator(spec, toolchain) as evaluator:
                def replay(name, encoded):
                    return evaluator.evaluate_encoded(name, [list(encoded)])[0]

                start = time.perf_counter()
                answers = engine_answers(prover, module, module.properties, replay)
                elapsed += time.perf_counter() - start
            answered += len(answers)
            kinds.update(f"{a.kind}" + (f" ({a.reasons[0]})" if a.reasons else "") for a in answers.values())
        rates.append(answered / elapsed)
        print(f"run {attempt + 1}: {answered} properties in {elapsed:.2f} s: {answered / elapsed:.2f} per second")
    total = sum(kinds.values())
    decided = kinds["proven"] + kinds["refuted"]
    print(f"median {sorted(rates)[len(rates) // 2]:.2f} properties per second")
    print(f"decided by smt (PROVEN or REFUTED): {decided} of {total} ({100 * decided / total:.0f}%); "
          f"left to TESTED alone: {total - decided} ({100 * (total - decided) / total:.0f}%)")
    for kind, n in sorted(kinds.items()):
        print(f"  {kind}: {n}")


if __name__ == "__main__":
    main()
