"""Bench: how a run's cost grows with the events a queue drive sends and with the rows a D1 table is seeded with.

    python3 bench/cloudflare_growth.py [--messages 1,10,100] [--rows 10,1000,10000] [--runs 30] [--rounds 3] [--samples 20] [--seed bench] [--smoke]

Both curves are on corpus/planted-bugs/queue-duplicate-write's fixed twin (a queue
consumer that inserts one D1 row per message, idempotently), its drive and seed rows
made larger:

1. Queue drive: ``--messages`` sizes (each message a new order), the twin's bounds
   (one fault per run at most). All sizes share one platform (one Node host, one
   workerd); each round performs ``--runs`` runs of every size in turn, so drift
   weighs on all alike. The runs are drawn as seeded exploration draws them (the
   planner's position-uniform faults, nine runs in ten with a fault) but none is
   skipped as a repeat, so no size runs out of schedules and every size performs
   exactly ``--runs`` runs a round. Printed per size: milliseconds per run (median of
   the rounds), effects per run, milliseconds per message, and the ratio of each to
   the smallest size's: cost per run grows at most linearly with events when the
   per-message ratio stays at or under 1.
2. D1 table: ``--rows`` sizes, the twin's table seeded with that many rows through
   ``d1_schema(..., rows=...)`` (none of which any run touches: the drive's two
   messages insert two other orders), one platform per size. Per size: milliseconds
   per run as in 1 (the run includes the reset before it and the snapshot after it);
   then ``--samples`` times, alternating between sizes: a fault-free run, a bare
   ``reset`` request (the binding records' reset alone, through the differential
   runner's raw side), a bare ``snapshot`` request and a no-op ``probe`` (one round
   trip). A reset's or a snapshot's cost is its median less the probe's median.
   Beside them, the floor: a reset of the same table made and filled by SQLite itself
   (a schema whose own statement inserts the rows), where the rows cost only what
   SQLite's DROP, CREATE and INSERT need.

Starting Node, bundling and starting workerd happen before any timing. ``--smoke`` is
the smallest size (two queue sizes, one table size, a few runs), only to show the script still runs (CI
runs it, asserting nothing of its figures). Wall time is used here only to report
speed; no verdict depends on it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for package in ("spec", "core", "engine", "cloudflare"):
    sys.path.insert(0, str(ROOT / "packages" / package / "src"))

from eutaxy.cloudflare import d1_schema, define_scenario, load_scenario, queue  # noqa: E402 - after the packages go on sys.path
from eutaxy.cloudflare import host as host_module  # noqa: E402 - after the packages go on sys.path
from eutaxy.cloudflare.differential import CloudflareRawSide  # noqa: E402 - after the packages go on sys.path
from eutaxy.cloudflare.platform import CloudflarePlatform  # noqa: E402 - after the packages go on sys.path
from eutaxy.engine.bounds import resolve_bounds, with_bounds  # noqa: E402 - after the packages go on sys.path
from eutaxy.engine.plans import seeded_plan  # noqa: E402 - after the packages go on sys.path
from eutaxy.engine.seeded import SeededPlanner  # noqa: E402 - after the packages go on sys.path

TWIN = ROOT / "corpus" / "planted-bugs" / "queue-duplicate-write" / "fixed" / "queue-duplicate-write-fixed.sim.py"

#: Runs of each size before timing starts (the isolate's JIT, SQLite's page cache).
WARMUP = 5

#: The floor's schema: the twin's table, filled by SQLite from a recursive CTE.
FLOOR_SQL = """CREATE TABLE payments (
  order_id TEXT PRIMARY KEY,
  amount_cents INTEGER NOT NULL
);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < {rows})
INSERT INTO payments (order_id, amount_cents) SELECT 'seed-' || i, i FROM n;
"""


def sized(base: dict[str, Any], messages: int, rows: int = 0, schema: str = "./schema.sql") -> dict[str, Any]:
    """The twin with ``messages`` orders in its drive and ``rows`` seeded rows, bounds resolved as a check does."""
    seeded = {"payments": [{"order_id": f"seed-{i}", "amount_cents": i} for i in range(rows)]} if rows else None
    scenario = define_scenario(
        name=base["name"],
        worker=base["worker"],
        setup=[d1_schema("DB", schema, rows=seeded)],
        drive=queue("payments", [{"body": {"orderId": f"o-{i}", "amountCents": 100 + i}} for i in range(messages)]),
        invariants=base["invariants"],
        bounds=base["bounds"],
        root=base["root"],
        source=base["source"],
    )
    return with_bounds(scenario, resolve_bounds(scenario))


class Platform:
    """One platform (one Node host, one workerd) kept for the whole bench, and its raw side for bare requests."""

    def __init__(self, scenario: dict[str, Any]) -> None:
        self._hosts: list[host_module.Host] = []

        def factory() -> host_module.Host:
            self._hosts.append(host_module.Host())
            return self._hosts[-1]

        self.platform = CloudflarePlatform(scenario, host_factory=factory)
        self.platform.start()
        self.raw = CloudflareRawSide(scenario, self._host)

    def _host(self) -> host_module.Host:
        self.platform.start()
        return self._hosts[-1]

    def timed(self, request: str) -> float:
        """Seconds of one bare request: ``reset``, ``snapshot`` or ``probe`` (the round trip alone)."""
        started = time.perf_counter()
        if request == "probe":
            assert self._host().request({"op": "probe"}, timeout_s=30).get("ok")
        else:
            getattr(self.raw, {"reset": "reset", "snapshot": "snapshots"}[request])()
        return time.perf_counter() - started

    def close(self) -> None:
        self.platform.close()


class Size:
    """One size's scenario and its planner: runs drawn as seeded exploration draws them, none skipped."""

    def __init__(self, label: str, scenario: dict[str, Any], platform: Platform, seed: str) -> None:
        self.label = label
        self.scenario = scenario
        self.platform = platform
        bounds = resolve_bounds(scenario)
        self.planner = SeededPlanner(seed=seed, max_faults_per_run=bounds.max_faults_per_run, fault_probability=bounds.fault_probability)
        self.seconds: list[float] = []
        self.effects = 0
        self.runs = 0

    def run(self, count: int, timed: bool = True) -> None:
        effects = 0
        started = time.perf_counter()
        for _ in range(count):
            result = self.platform.platform.run(self.planner.next_plan(self.scenario))
            self.planner.observe(result)
            effects += len(result.effects)
        if timed:
            self.seconds.append((time.perf_counter() - started) / count)
            self.effects += effects
            self.runs += count

    def fault_free(self) -> None:
        self.platform.platform.run(seeded_plan(self.scenario, "fault-free", 0, {}, 0, max_short_batches=0))


def alternate(sizes: list[Size], runs: int, rounds: int) -> None:
    for size in sizes:
        size.run(WARMUP, timed=False)
    for _ in range(rounds):
        for size in sizes:
            size.run(runs)


def queue_growth(base: dict[str, Any], counts: list[int], runs: int, rounds: int, seed: str) -> None:
    platform = Platform(sized(base, counts[0]))
    try:
        sizes = [Size(f"{n} messages", sized(base, n), platform, seed) for n in counts]
        alternate(sizes, runs, rounds)
    finally:
        platform.close()
    print(f"1. queue drive: {rounds} rounds of {runs} runs per size, alternating; runs drawn as seeded exploration "
          "draws them, none skipped as a repeat (so no size runs out of schedules)")
    print(f"   {'size':>14} {'ms/run':>8} {'effects/run':>12} {'ms/message':>11} {'run ratio':>10} {'per-message ratio':>18}")
    first = statistics.median(sizes[0].seconds)
    for n, size in zip(counts, sizes):
        per_run = statistics.median(size.seconds)
        print(f"   {size.label:>14} {per_run * 1000:8.2f} {size.effects / size.runs:12.1f} {per_run * 1000 / n:11.3f} "
              f"{per_run / first:10.2f} {(per_run / n) / (first / counts[0]):18.2f}")


def d1_growth(base: dict[str, Any], counts: list[int], runs: int, rounds: int, samples: int, seed: str) -> None:
    platforms: list[Platform] = []
    folder = tempfile.TemporaryDirectory(prefix="eutaxy-bench-")
    try:
        sizes, floors = [], []
        for n in counts:
            platforms.append(Platform(sized(base, 2, n)))
            sizes.append(Size(f"{n} rows", sized(base, 2, n), platforms[-1], seed))
            floor = Path(folder.name) / f"floor-{n}.sql"
            floor.write_text(FLOOR_SQL.format(rows=n))
            platforms.append(Platform(sized(base, 2, 0, str(floor))))
            floors.append(Size(f"{n} rows (floor)", sized(base, 2, 0, str(floor)), platforms[-1], seed))
        alternate(sizes, runs, rounds)
        times: dict[str, dict[str, list[float]]] = {s.label: {"reset": [], "snapshot": [], "probe": []} for s in sizes + floors}
        for _ in range(samples):
            for size in sizes + floors:
                size.fault_free()
                for request in ("reset", "snapshot", "probe"):
                    times[size.label][request].append(size.platform.timed(request))
    finally:
        for platform in platforms:
            platform.close()
        folder.cleanup()
    cost = {label: {r: statistics.median(t[r]) - (statistics.median(t["probe"]) if r != "probe" else 0) for r in t} for label, t in times.items()}
    print(f"2. D1 table: {rounds} rounds of {runs} runs per size (two messages a run, none touching the seeded rows); "
          f"reset and snapshot: median of {samples} bare requests after a fault-free run, less the median probe")
    print(f"   {'size':>12} {'ms/run':>8} {'run ratio':>10} {'reset ms':>9} {'reset ratio':>12} {'floor reset ms':>15} "
          f"{'snapshot ms':>12} {'snapshot ratio':>15}")
    first = statistics.median(sizes[0].seconds)
    for size, floor in zip(sizes, floors):
        per_run = statistics.median(size.seconds)
        mine, low, top = cost[size.label], cost[floor.label], cost[sizes[0].label]
        print(f"   {size.label:>12} {per_run * 1000:8.2f} {per_run / first:10.2f} {mine['reset'] * 1000:9.2f} "
              f"{mine['reset'] / top['reset']:12.2f} {low['reset'] * 1000:15.2f} {mine['snapshot'] * 1000:12.2f} "
              f"{mine['snapshot'] / top['snapshot']:15.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", default="1,10,100", help="comma-separated queue drive sizes (messages)")
    parser.add_argument("--rows", default="10,1000,10000", help="comma-separated seeded row counts")
    parser.add_argument("--runs", type=int, default=30, help="timed runs per size and round")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds")
    parser.add_argument("--samples", type=int, default=20, help="timed bare resets and snapshots per size")
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--smoke", action="store_true", help="the smallest size (CI's smoke run): --messages 1,2 --rows 10 --runs 2 --rounds 1 --samples 2")
    args = parser.parse_args()
    if args.smoke:
        args.messages, args.rows, args.runs, args.rounds, args.samples = "1,2", "10", 2, 1, 2
    base = load_scenario(TWIN)
    queue_growth(base, [int(n) for n in args.messages.split(",")], args.runs, args.rounds, args.seed)
    d1_growth(base, [int(n) for n in args.rows.split(",")], args.runs, args.rounds, args.samples, args.seed)


if __name__ == "__main__":
    main()
