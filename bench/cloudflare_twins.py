"""Bench: runs per second and reset cost on the binding twins (issue 16), beside the D1 queue twin, in one run.

    python3 bench/cloudflare_twins.py [--runs 150] [--max-faults 3] [--rounds 3] [--samples 60] [--history 250,1000] [--smoke]

The twins are the fixed twins of planted bugs (BOUNDED Workers, so a check explores
until its run cap or until no schedule is left). ``TWINS`` lists them; the first,
corpus/planted-bugs/queue-duplicate-write's (D1 and a queue), is the baseline every
ratio is taken against, measured in the same process, alternating with the others,
so drift and a busy machine weigh on all alike (bench/README.md).

Each twin runs with the seed the CLI would give it (its file's name).

1. Runs per second: each round checks every twin once, in ``TWINS`` order
   (``check_scenario`` with ``max_runs=--runs`` and a budget that never ends it
   first, at ``maxFaultsPerRun`` ``--max-faults``: at the twins' own 1 their spaces
   are 13, 19 and 25 schedules, exhausted long before ``--runs``; a check that
   exhausts its space is refused, not timed); a twin's rate is its platform's count
   of host runs (replays and module-state runs included) over the check's wall time. Printed: the median
   over ``--rounds`` and its ratio to the baseline's median. Starting Node,
   bundling and starting workerd happen once per twin, before any timing.
2. Reset cost: per twin, ``--samples`` times, alternating between twins: a
   fault-free run (which leaves what a run leaves), then one timed ``reset``
   request (the binding records' reset alone, as a run's setup does it, through
   the differential runner's raw side) and one timed no-op ``probe`` (the round
   trip). A reset's cost is the median reset less the median probe.
3. Does an R2 reset grow with the objects a bucket ever had? On the R2 twin, for
   each size ``h`` of ``--history``: one fault-free run of ``h`` uploads (the run
   touches ``h`` objects), the next reset timed alone (it deletes them: a reset
   costs what the last run touched), then ``--samples`` ordinary run + reset +
   probe triples as in 2. The bucket has by then held ``h`` more objects than
   the twin's own runs ever write; the ordinary resets' cost is printed beside
   the cost before any history, with their ratio. The reset lists the bucket's
   current objects (the seeds and what the last run wrote), so the ratio should
   stay near 1 whatever ``h``.
4. Does a Durable Object reset grow with the objects a namespace ever had? The same
   on the DO twin: one fault-free run of ``h`` orders (the run reaches ``h``
   objects, each charged by its alarm), the next reset timed alone (it clears,
   seeds and evicts them), then ordinary triples. The reset visits only the objects
   whose code ran since the last reset, so the ratio should stay near 1.

``--smoke`` is the smallest size (CI runs it, asserting nothing of its figures).
Wall time is used here only to report speed; no verdict depends on it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
for package in ("spec", "core", "engine", "cloudflare"):
    sys.path.insert(0, str(ROOT / "packages" / package / "src"))

from eutaxy.cloudflare import define_scenario, http, load_scenario  # noqa: E402 - after the packages go on sys.path
from eutaxy.cloudflare import host as host_module  # noqa: E402 - after the packages go on sys.path
from eutaxy.cloudflare.differential import CloudflareRawSide  # noqa: E402 - after the packages go on sys.path
from eutaxy.cloudflare.platform import CloudflarePlatform  # noqa: E402 - after the packages go on sys.path
from eutaxy.engine.check import check_scenario, replay_scenario  # noqa: E402 - after the packages go on sys.path

PLANTED = ROOT / "corpus" / "planted-bugs"

#: (label, fixed twin's scenario file), the baseline first. Each row is measured the same way.
TWINS: list[tuple[str, Path]] = [
    ("D1 queue twin (baseline)", PLANTED / "queue-duplicate-write" / "fixed" / "queue-duplicate-write-fixed.sim.py"),
    ("R2 twin", PLANTED / "r2-orphan-reference" / "fixed" / "r2-orphan-reference-fixed.sim.py"),
    ("DO twin", PLANTED / "do-alarm-double-charge" / "fixed" / "do-alarm-double-charge-fixed.sim.py"),
]

#: The R2 twin, for the history measure (3).
R2_TWIN = TWINS[1][1]
#: The Durable Object twin (one object per order, each charged by its alarm), for the history measure (4).
DO_TWIN = TWINS[2][1]

#: Long enough that only --runs ends an exploration.
BUDGET_MS = 3_600_000

#: Runs and resets of each twin before timing starts (the isolate's JIT, SQLite's page cache).
WARMUP = 10

#: A fault-free schedule.
NO_FAULTS = {"faults": [], "turns": []}


class Twin:
    """One twin's platform, kept for the whole bench, and the raw side that sends it bare resets."""

    def __init__(self, label: str, path: Path) -> None:
        self.label = label
        self.scenario = load_scenario(path)
        self.seed = path.name.removesuffix(".sim.py")
        self._hosts: list[host_module.Host] = []

        def factory() -> host_module.Host:
            started = host_module.Host()
            self._hosts.append(started)
            return started

        self.platform = CloudflarePlatform(self.scenario, host_factory=factory)
        self.platform.start()
        self._raw = CloudflareRawSide(self.scenario, self._host)

    def _host(self) -> host_module.Host:
        self.platform.start()
        return self._hosts[-1]

    def run(self, scenario: dict[str, Any] | None = None) -> None:
        """One fault-free run of ``scenario`` (the twin's own by default) through the proxies."""
        outcome = replay_scenario(scenario or self.scenario, self.platform, NO_FAULTS, seed=self.seed)
        end = outcome["result"]["end"]
        if end.get("kind") != "completed" or outcome["violations"]:
            raise SystemExit(f"{self.label}: a fault-free run did not complete cleanly: {end}, {outcome['violations']}")

    def reset(self) -> float:
        started = time.perf_counter()
        self._raw.reset()
        return time.perf_counter() - started

    def probe(self) -> float:
        started = time.perf_counter()
        answer = self._host().request({"op": "probe"}, timeout_s=30)
        assert answer.get("ok"), answer
        return time.perf_counter() - started

    def close(self) -> None:
        self.platform.close()


def runs_per_second(twin: Twin, runs: int, max_faults: int) -> float:
    before = twin.platform.runs
    scenario = {**twin.scenario, "bounds": {**twin.scenario["bounds"], "maxFaultsPerRun": max_faults}}
    started = time.perf_counter()
    verdict = check_scenario(scenario, twin.platform, seed=twin.seed, max_runs=runs, budget_ms=BUDGET_MS)
    elapsed = time.perf_counter() - started
    if verdict["kind"] != "bounded":
        raise SystemExit(f"{twin.label}: the twin is not BOUNDED, so its runs measure something else: {verdict.get('cause') or verdict.get('violation')}")
    if verdict["provenance"].get("completed"):
        raise SystemExit(f"{twin.label}: the check exhausted its space after {verdict['provenance']['runs']} runs, before --runs {runs}; "
                         "raise --max-faults")
    return (twin.platform.runs - before) / elapsed


def reset_samples(twin: Twin, samples: int, after: Callable[[], None] | None = None) -> tuple[float, float]:
    """Medians of ``samples`` (run, reset, probe) triples, in seconds: (reset, probe)."""
    resets, probes = [], []
    for _ in range(samples):
        (after or twin.run)()
        resets.append(twin.reset())
        probes.append(twin.probe())
    return statistics.median(resets), statistics.median(probes)


def uploads(twin: Twin, count: int) -> dict[str, Any]:
    """The R2 twin's scenario with ``count`` uploads of distinct files instead of its own requests."""
    scenario = twin.scenario
    return define_scenario(
        name=scenario["name"],
        worker=scenario["worker"],
        setup=scenario["setup"],
        drive=http([
            {"method": "POST", "path": "/uploads", "body": {"fileId": f"h-{index}", "text": f"history {index}"}}
            for index in range(count)
        ]),
        invariants=scenario["invariants"],
        bounds=scenario["bounds"],
        root=scenario["root"],
        source=R2_TWIN,
    )


def orders(twin: Twin, count: int) -> dict[str, Any]:
    """The DO twin's scenario with ``count`` orders, each its own object, instead of its own requests."""
    scenario = twin.scenario
    return define_scenario(
        name=scenario["name"],
        worker=scenario["worker"],
        setup=scenario["setup"],
        drive=http([
            {"method": "POST", "path": "/orders", "body": {"orderId": f"h-{index}", "cents": index}}
            for index in range(count)
        ]),
        invariants=scenario["invariants"],
        bounds=scenario["bounds"],
        root=scenario["root"],
        source=DO_TWIN,
    )


def history(twin: Twin, sizes: list[int], samples: int, before: float, build: Callable[[Twin, int], dict[str, Any]], what: str) -> None:
    """Print how a twin's reset costs after runs that touched ``sizes`` objects once (measures 3 and 4)."""
    print(f"   no history:   reset after an ordinary run {before * 1000:6.2f} ms")
    held = 0
    for size in sizes:
        twin.run(build(twin, size))
        touched = twin.reset()
        held += size
        reset, probe = reset_samples(twin, samples)
        after = reset - probe
        print(f"   +{size:5} {what}: the reset after the run that reached them {(touched - probe) * 1000:8.2f} ms; "
              f"then after ordinary runs {after * 1000:6.2f} ms, ratio to no history {after / before:.2f} "
              f"({held} reached and reset so far)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=150, help="max_runs of each twin's check per round")
    parser.add_argument("--rounds", type=int, default=3, help="checks of each twin, alternating")
    parser.add_argument("--samples", type=int, default=60, help="timed resets per twin (and per history size)")
    parser.add_argument("--history", default="250,1000", help="comma-separated counts of objects the R2 bucket is made to hold, and the DO namespace to have, once")
    parser.add_argument("--max-faults", type=int, default=3, help="maxFaultsPerRun of the checks timed in 1")
    parser.add_argument("--smoke", action="store_true", help="the smallest size (CI's smoke run): --runs 5 --rounds 1 --samples 2 --history 3")
    args = parser.parse_args()
    if args.smoke:
        args.runs, args.rounds, args.samples, args.history = 5, 1, 2, "3"
    history_sizes = [int(size) for size in args.history.split(",") if size.strip()]
    twins = [Twin(label, path) for label, path in TWINS]
    try:
        for twin in twins:
            for _ in range(WARMUP):
                twin.run()
                twin.reset()
                twin.probe()

        rates: dict[str, list[float]] = {twin.label: [] for twin in twins}
        for _ in range(args.rounds):
            for twin in twins:
                rates[twin.label].append(runs_per_second(twin, args.runs, args.max_faults))
        base_rate = statistics.median(rates[twins[0].label])
        print(f"1. runs per second (median of {args.rounds} checks of {args.runs} runs each at maxFaultsPerRun {args.max_faults}, "
              "none exhausting its space, alternating)")
        for twin in twins:
            rate = statistics.median(rates[twin.label])
            spread = ", ".join(f"{value:.0f}" for value in rates[twin.label])
            print(f"   {twin.label:28} {rate:7.1f} runs/s  ({spread})  ratio to baseline {rate / base_rate:.2f}")

        costs: dict[str, tuple[float, float]] = {}
        resets: dict[str, list[float]] = {twin.label: [] for twin in twins}
        probes: dict[str, list[float]] = {twin.label: [] for twin in twins}
        for _ in range(args.samples):
            for twin in twins:
                twin.run()
                resets[twin.label].append(twin.reset())
                probes[twin.label].append(twin.probe())
        for twin in twins:
            costs[twin.label] = (statistics.median(resets[twin.label]), statistics.median(probes[twin.label]))
        base_cost = costs[twins[0].label][0] - costs[twins[0].label][1]
        print(f"2. reset cost after a fault-free run (median reset less median probe, {args.samples} samples, alternating)")
        for twin in twins:
            reset, probe = costs[twin.label]
            print(f"   {twin.label:28} {(reset - probe) * 1000:6.2f} ms  (reset {reset * 1000:.2f} ms, probe {probe * 1000:.2f} ms)"
                  f"  ratio to baseline {(reset - probe) / base_cost:.2f}")

        r2 = next(twin for twin in twins if twin.scenario["name"] == load_scenario(R2_TWIN)["name"])
        reset, probe = costs[r2.label]
        before = reset - probe
        print(f"3. R2 reset against the objects the bucket ever held (ordinary runs touch {len(r2.scenario['drive']['events'])} uploads)")
        print(f"   no history:   reset after an ordinary run {before * 1000:6.2f} ms")
        held = 0
        for size in history_sizes:
            r2.run(uploads(r2, size))
            touched = r2.reset()
            held += size
            reset, probe = reset_samples(r2, args.samples)
            after = reset - probe
            print(f"   +{size:5} held: the reset after the run that wrote them {(touched - probe) * 1000:8.2f} ms; "
                  f"then after ordinary runs {after * 1000:6.2f} ms, ratio to no history {after / before:.2f} "
                  f"({held} objects held and deleted so far)")
        dos = next(twin for twin in twins if twin.scenario["name"] == load_scenario(DO_TWIN)["name"])
        reset, probe = costs[dos.label]
        print(f"4. Durable Object reset against the objects the namespace ever had (ordinary runs reach {len(dos.scenario['drive']['events'])} objects)")
        history(dos, history_sizes, args.samples, reset - probe, orders, "objects")
    finally:
        for twin in twins:
            twin.close()


if __name__ == "__main__":
    main()
