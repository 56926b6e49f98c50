"""One check's exploration split over Bazel's test shards, and the merge of their runs into one job's verdict.

A shard (``check_shard``: ``eutaxy check --shard INDEX/TOTAL``) is a process of its own,
perhaps on another machine, that shares nothing with the others while it runs. Each makes
the first run itself (it measures the eligible points every later draw ranges over), then
draws seeded exploration's plans 1, 2, ... up to ``maxRuns`` as one job would if no run but
the first and this shard's own taught it anything (the guess ``--jobs`` runs ahead on, with
the shard's own runs learnt from), and runs its slice of them: plan ``i`` when ``(i - 1) %
TOTAL == INDEX``. It stops at the first run of its slice that breaks an invariant or is
unsupported, at its budget, or where one job would start enumerating the branches left, and
writes every run it made, keyed by its plan, with the result as the runtime gave it.

The merge (``check_verdict(..., recorded=...)``: ``eutaxy check --merge-shards DIR``) is the
one-job check, plan by plan, in plan order, except that a plan some shard ran is not run
again: its recorded result is judged as a run made now would be. A plan no shard ran (a
guess that failed: a run measured more eligible points, or a draw repeated a schedule, or a
shard stopped at its violation or its budget) is run then, on the merge's platform; so is
every replay, the shrinking and the module-state check. The verdict is the bytes of one job's
for the same seed and ``maxRuns``, whatever the shards' count.
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any, Callable, Mapping, Sequence

import attrs

from eutaxy.core.canonical import to_json
from eutaxy.core.errors import UserError
from eutaxy.core.protocol import Platform, RunPlan, RunResult, SeededPolicy

from eutaxy.engine.bounds import resolve_bounds, with_bounds
from eutaxy.engine.replay import confirm
from eutaxy.engine.seeded import SKIPS_BEFORE_ENUMERATING, SeededStrategy, new_draw
from eutaxy.engine.session import RunRecord, Session, violation_key

__all__ = ["SHARD_FORMAT", "Recorded", "check_shard", "fingerprint", "plan_key", "shard_file_name"]

#: The version of the shard file's layout.
SHARD_FORMAT = 1

#: Where a scenario's files are: different in a Bazel sandbox and in the checkout the merge runs in.
_PLACES = ("root", "source")


def plan_key(plan: RunPlan) -> str:
    """An exploration plan's identity without its scenario (every exploration plan carries the
    same one, under a path that differs between a shard's sandbox and the merge)."""
    data = {key: value for key, value in plan.to_data().items() if key != "scenario"}
    return hashlib.sha256(to_json(data).encode()).hexdigest()


def fingerprint(scenario: Mapping[str, Any], seed: str) -> str:
    """The check a shard belongs to: the scenario with its bounds (``maxRuns`` among them) and
    the seed, leaving out where its files are."""
    data = {"scenario": {key: value for key, value in scenario.items() if key not in _PLACES}, "seed": seed}
    return hashlib.sha256(to_json(data).encode()).hexdigest()


def shard_file_name(stem: str, index: int, total: int) -> str:
    return f"{stem}.shard-{index}-of-{total}.json"


def _check_slice(index: int, total: int) -> None:
    if not (isinstance(index, int) and isinstance(total, int) and 0 <= index < total):
        raise UserError(f"a shard is INDEX/TOTAL with 0 <= INDEX < TOTAL (Bazel's TEST_SHARD_INDEX and TEST_TOTAL_SHARDS), got {index}/{total}")


def check_shard(
    scenario: dict[str, Any],
    platform: Platform,
    *,
    seed: str,
    index: int,
    total: int,
    max_runs: int | None = None,
    budget_ms: int | None = None,
    clock_ms: Callable[[], float],
) -> dict[str, Any]:
    """Run shard ``index`` of ``total`` of the check and return what the merge needs, as plain data.

    ``found`` names the first run of the slice that broke an invariant (``replayed``: its replay
    broke it again) and ``unsupported`` the cause of one that was unsupported.
    """
    _check_slice(index, total)
    bounds = resolve_bounds(scenario, max_runs=max_runs, budget_ms=budget_ms)
    if bounds.max_runs is None:
        raise UserError("a shard runs its slice of the first maxRuns plans: give --max-runs or the scenario's bounds.maxRuns")
    scenario = with_bounds(scenario, bounds)
    session = Session(platform=platform, scenario=scenario, seed=seed, bounds=bounds, clock_ms=clock_ms, keep_first=0)
    strategy = SeededStrategy(session=session)
    record = session.explore(strategy.next_plan())
    strategy.observe(record)
    ran = [record]
    # The plans one job would give if no run but the first and this shard's own taught it
    # anything: each shard draws every plan (the draws consume one stream) and runs its slice.
    planner, tree = copy.deepcopy(strategy.planner), strategy.tree
    scenario_now = dict(session.scenario)
    # Where the first run had no choice of turns or batches, a draw whose schedule another draw already took
    # (told by the first fault's kind, as the plan follower picks it at the first run's options
    # there, and the later faults' draws) is one one job skips: it is neither counted nor run here.
    decisions = record.result.decisions
    turns_vary = any(decision.kind != "fault" and len(decision.options) > 1 for decision in decisions)
    options = [len(decision.options) for decision in decisions if decision.kind == "fault"]
    drawn: set[tuple[tuple[int, int], ...]] = {()}
    planned = 1
    mine = 0
    repeats = 0
    # Bounded: each pass draws once, and SKIPS_BEFORE_ENUMERATING repeats in a row or maxRuns plans end it.
    while planned < bounds.max_runs and not (record.violations or record.unsupported):
        if session.elapsed_ms() >= bounds.budget_ms:
            break
        plan, _skipped = new_draw(scenario_now, planner, tree)
        if plan is None:
            break  # one job would enumerate what is left from here: each plan depends on the run before
        policy = plan.policy
        assert isinstance(policy, SeededPolicy), policy
        faults = tuple(sorted(policy.faults.items()))
        if faults and faults[0][0] < len(options):
            first, draw = faults[0]
            faults = ((first, 1 + draw % (options[first] - 1)), *faults[1:])
        if not turns_vary and faults in drawn:
            repeats += 1
            if repeats >= SKIPS_BEFORE_ENUMERATING:
                break  # as one job, which enumerates what is left after that many repeats in a row
            continue
        repeats = 0
        drawn.add(faults)
        if (planned - 1) % total == index:
            mine += 1
            record = session.perform(plan)
            ran.append(record)
            # Its eligible counts, never its schedule: a draw one job skips because another shard's
            # run took its schedule shifts the plans after it, which the merge finds by their keys;
            # skipping a draw for this shard's own run alone would shift them the other way.
            planner.observe(record.result)
        planned += 1
    found = None
    if record.violations:
        confirmed = confirm(session, record)
        invariant, keys = violation_key(record.violations[0])
        found = {"plan": plan_key(record.plan), "invariant": invariant, "keys": list(keys), "replayed": confirmed is not None}
    return {
        "eutaxyShard": SHARD_FORMAT,
        "scenario": str(scenario.get("name") or seed),
        "fingerprint": fingerprint(scenario, seed),
        "seed": seed,
        "maxRuns": bounds.max_runs,
        "shard": index,
        "shards": total,
        "planned": planned,
        "slice": mine,
        "runs": [{"plan": plan_key(one.plan), "result": one.result.to_data()} for one in ran],
        "found": found,
        "unsupported": record.result.end.cause if record.unsupported else None,
    }


@attrs.define(eq=False)
class Recorded:
    """The shards' runs, taken by the exploration loop in place of making them (``Session.jobs``).

    A plan some shard ran gives its recorded result, judged now (``job`` 1); any other plan is
    run on the merge's platform (``job`` 0).
    """

    results: dict[str, Mapping[str, Any]]
    perform: Callable[[RunPlan], RunRecord]
    record_of: Callable[[RunPlan, RunResult], RunRecord]
    #: Plans run here because no shard ran them (a measure, never part of a verdict).
    ran_here: int = 0
    size: int = 1

    @classmethod
    def from_shards(cls, shards: Sequence[Mapping[str, Any]], session: Session) -> "Recorded":
        """The runs of every shard of this check; refused unless each of ``TOTAL`` shards is there once."""
        expected = fingerprint(session.scenario, session.seed)
        if not shards:
            raise UserError("no shard results to merge")
        total = shards[0].get("shards")
        seen: dict[int, Mapping[str, Any]] = {}
        for shard in shards:
            if shard.get("eutaxyShard") != SHARD_FORMAT:
                raise UserError(f"a shard result of format {shard.get('eutaxyShard')!r}, not {SHARD_FORMAT}: made by another Eutaxy")
            if shard.get("fingerprint") != expected:
                raise UserError(
                    f"shard {shard.get('shard')}/{shard.get('shards')} of {shard.get('scenario')!r} (seed {shard.get('seed')!r}, "
                    f"maxRuns {shard.get('maxRuns')}) is of another check than this one (seed {session.seed!r}, "
                    f"maxRuns {session.bounds.max_runs}): the scenario, its bounds or the seed differ"
                )
            if shard.get("shards") != total:
                raise UserError(f"shard results of {total} and of {shard.get('shards')} shards cannot be merged")
            index = shard.get("shard")
            if not isinstance(index, int) or index in seen:
                raise UserError(f"shard {index}/{total} is there twice")
            seen[index] = shard
        assert isinstance(total, int), total
        missing = [str(index) for index in range(total) if index not in seen]
        if missing:
            raise UserError(f"the shard results of {total} shards lack shard {', '.join(missing)}")
        results = {run["plan"]: run["result"] for shard in shards for run in shard["runs"]}
        return cls(results=results, perform=lambda plan: session.perform(plan, shared=True), record_of=session.record_of)

    def run(self, plan: RunPlan, ahead: Sequence[RunPlan]) -> tuple[object, int]:
        result = self.results.get(plan_key(plan))
        if result is None:
            self.ran_here += 1
            return self.perform(plan), 0
        return self.record_of(plan, RunResult.from_data(result)), 1
