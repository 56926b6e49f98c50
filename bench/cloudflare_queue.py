"""Bench: seeded-exploration runs per second on a queue Worker, and the proxies' cost over raw.

    python3 bench/cloudflare_queue.py [--runs 300] [--messages 20] [--max-faults 3] [--samples 200] [--seed bench] [--checkout DIR] [--ratio-only] [--smoke]

Two numbers, both on corpus/planted-bugs/queue-duplicate-write's fixed twin (an
idempotent consumer, so no violation stops exploration):

1. Seeded exploration: ``check_scenario`` with ``max_runs=--runs`` and a budget
   that never ends it first, on the twin with ``--messages`` messages (each a new
   order) and ``maxFaultsPerRun`` ``--max-faults``: a space far larger than
   ``--runs`` (the twin's own two messages and one fault make 13 schedules, which
   exploration exhausts in a fraction of a second), so the check performs all of
   ``--runs``; one that exhausted the space first is refused, not timed. Printed as
   runs per second (the platform's own count of runs the host performed, replays
   and module-state runs included) over the wall time of the check, with the runs
   explored and the space's size. Starting Node, bundling and starting workerd
   happen before the timed part (a check pays them once).
2. Proxied over raw: in one process and one Miniflare instance, ``--samples``
   fault-free runs through Eutaxy's proxies (a plan with no faults, through the
   platform), as many raw runs (the handler on the unproxied bindings, the
   differential runner's raw side) and as many no-op ``probe`` requests (one
   round trip Python -> Node host -> workerd's control entrypoint and back,
   doing nothing), alternated so drift hits all three alike. A proxied run is
   one host request; a raw run is ``k`` requests (reset, one per delivery
   attempt, snapshot; ``k`` is counted, not assumed, so a checkout whose raw
   side is one request is measured the same way). The printed ratio is

       (median proxied - 1 x median probe) / (median raw - k x median probe)

   the in-isolate work of a proxied run over that of a raw run, round trips
   taken out of both: the cost of the proxies, the virtual globals, the plan
   follower and the queue drive over calling the handler directly, with the
   same D1 reset and snapshot on both sides. The unadjusted ratio of the two
   medians is printed beside it.

``--checkout DIR`` puts another checkout's packages (and corpus case) on the
path instead of this one's, so one script measures a baseline commit (a
``git worktree``) the same way; ``--ratio-only`` skips the exploration. ``--smoke`` is
the smallest size (CI runs it, asserting nothing of its figures).

Wall time is used here only to report speed; no verdict depends on it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _checkout() -> Path:
    """The checkout whose packages are measured: ``--checkout DIR``, else this one."""
    for index, argument in enumerate(sys.argv):
        if argument == "--checkout" and index + 1 < len(sys.argv):
            return Path(sys.argv[index + 1]).resolve()
        if argument.startswith("--checkout="):
            return Path(argument.split("=", 1)[1]).resolve()
    return ROOT


CHECKOUT = _checkout()
for package in ("spec", "core", "engine", "cloudflare"):
    sys.path.insert(0, str(CHECKOUT / "packages" / package / "src"))

from eutaxy.cloudflare import create_platform, define_scenario, load_scenario, queue  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.cloudflare import host as host_module  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.cloudflare.differential import DifferentialRunner  # noqa: E402 - after the checkout's packages go on sys.path
from eutaxy.engine.check import check_scenario  # noqa: E402 - after the checkout's packages go on sys.path

SCENARIO = CHECKOUT / "corpus" / "planted-bugs" / "queue-duplicate-write" / "fixed" / "queue-duplicate-write-fixed.sim.py"

#: Long enough that only --runs ends the exploration.
BUDGET_MS = 3_600_000

#: Runs of each kind before timing starts (the isolate's JIT, SQLite's page cache).
WARMUP = 20


def larger(twin: dict, messages: int, max_faults: int) -> dict:
    """The twin with ``messages`` orders in its drive and ``max_faults`` faults per run at most."""
    return define_scenario(
        name=twin["name"], worker=twin["worker"], setup=twin["setup"],
        drive=queue("payments", [{"body": {"orderId": f"o-{i}", "amountCents": 100 + i}} for i in range(messages)]),
        invariants=twin["invariants"], bounds={**twin["bounds"], "maxFaultsPerRun": max_faults},
        root=twin["root"], source=twin["source"],
    )


def exploration(scenario: dict, runs: int, seed: str) -> None:
    platform = create_platform(scenario)
    try:
        started = time.perf_counter()
        verdict = check_scenario(scenario, platform, seed=seed, max_runs=runs, budget_ms=BUDGET_MS)
        elapsed = time.perf_counter() - started
    finally:
        platform.close()
    explored = verdict["provenance"]["runs"]
    if verdict["provenance"].get("completed"):
        raise SystemExit(f"seeded exploration exhausted the space ({explored} runs) before --runs {runs}: "
                         "a rate over it would time a short check; raise --messages or --max-faults")
    print(f"space: {len(scenario['drive']['events'])} messages, maxFaultsPerRun {scenario['bounds']['maxFaultsPerRun']}; "
          f"not exhausted after {explored} runs ({verdict['provenance'].get('schedules', explored)} distinct schedules)")
    print(f"seeded exploration: {verdict['kind']}, {explored} runs explored, {platform.runs} host runs "
          f"in {elapsed:.2f}s: {platform.runs / elapsed:,.0f} runs/s ({explored / elapsed:,.0f} explored runs/s)")


class _Counted:
    """Counts the host requests made through ``Host.request`` (each one round trip)."""

    def __init__(self) -> None:
        self.requests = 0
        self._request = host_module.Host.request
        counted = self

        def request(host: Any, message: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            counted.requests += 1
            return counted._request(host, message, **kwargs)

        host_module.Host.request = request  # type: ignore[method-assign]  # the bench counts round trips; restored by close()

    def close(self) -> None:
        host_module.Host.request = self._request  # type: ignore[method-assign]  # restores the class's own


def proxied_over_raw(scenario: dict, samples: int, seed: str) -> None:
    counted = _Counted()
    try:
        with DifferentialRunner(scenario) as runner:
            outcome = runner.run(seed=seed)
            if not outcome.agree:
                raise SystemExit(f"the proxied and raw runs disagree, so timing them compares different work: {outcome.differences}")

            def probe() -> None:
                # The host the runner's raw side talks to (alive: the run above started it).
                answer = runner._hosts[-1].request({"op": "probe"}, timeout_s=30)
                assert answer.get("ok"), answer

            for _ in range(WARMUP):
                runner.proxied(seed=seed)
                runner.raw()
                probe()
            before = counted.requests
            runner.raw()
            per_raw = counted.requests - before
            before = counted.requests
            runner.proxied(seed=seed)
            per_proxied = counted.requests - before
            proxied, raw, probes = [], [], []
            for _ in range(samples):
                started = time.perf_counter()
                runner.proxied(seed=seed)
                proxied.append(time.perf_counter() - started)
                started = time.perf_counter()
                runner.raw()
                raw.append(time.perf_counter() - started)
                started = time.perf_counter()
                probe()
                probes.append(time.perf_counter() - started)
    finally:
        counted.close()
    p, r, t = statistics.median(proxied), statistics.median(raw), statistics.median(probes)
    print(f"proxied fault-free run: median {p * 1000:.2f} ms over {samples} runs, {per_proxied} host request(s) each")
    print(f"raw handler run:        median {r * 1000:.2f} ms over {samples} runs, {per_raw} host request(s) each")
    print(f"probe round trip:       median {t * 1000:.2f} ms over {samples} requests")
    print(f"proxied/raw ratio, round trips out: {(p - per_proxied * t) / (r - per_raw * t):.2f} "
          f"(unadjusted {p / r:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300, help="max_runs of the seeded exploration")
    parser.add_argument("--samples", type=int, default=200, help="timed runs of each kind for the ratio")
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--checkout", metavar="DIR", help="measure that checkout's packages (read before parsing)")
    parser.add_argument("--ratio-only", action="store_true", help="skip the seeded exploration")
    parser.add_argument("--messages", type=int, default=20, help="messages of the explored drive")
    parser.add_argument("--max-faults", type=int, default=3, help="maxFaultsPerRun of the exploration")
    parser.add_argument("--smoke", action="store_true", help="the smallest size (CI's smoke run): --runs 5 --samples 3")
    args = parser.parse_args()
    if args.smoke:
        args.runs, args.samples = 5, 3
    print(f"checkout: {CHECKOUT}")
    scenario = load_scenario(SCENARIO)
    if not args.ratio_only:
        exploration(larger(scenario, args.messages, args.max_faults), args.runs, args.seed)
    proxied_over_raw(scenario, args.samples, args.seed)


if __name__ == "__main__":
    main()
