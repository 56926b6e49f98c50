"""Exploration on several jobs (engine/jobs.py) and over Bazel shards (engine/shards.py): one job's verdict.

The toy platform's instances are slowed by different amounts per job, so runs made ahead
finish out of plan order; the verdict's bytes must still be one job's, and the extra jobs
must have run plans (or the comparison would hold trivially).
"""

from __future__ import annotations

import itertools
import json
import threading
import time

import pytest

from eutaxy.core.canonical import to_json
from eutaxy.core.errors import UserError
from eutaxy.engine.check import check_scenario
from eutaxy.engine.jobs import Jobs, usable_jobs
from eutaxy.engine.plans import first_plan
from eutaxy.engine.shards import check_shard

from toyplatform import ToyPlatform, orders_scenario


class _Slow:
    """A toy platform whose runs take ``delays`` seconds in turn (a job that answers late, then early)."""

    def __init__(self, delays: list[float]) -> None:
        self.toy = ToyPlatform(record=False)
        self._delays = itertools.cycle(delays)
        self.runs = 0

    def run(self, plan):
        time.sleep(next(self._delays))
        self.runs += 1
        return self.toy.run(plan)

    def describe(self):
        return self.toy.describe()

    def close(self):
        pass


def _check(scenario, seed, jobs):
    made: list[_Slow] = []
    pace = itertools.count()

    def create():
        made.append(_Slow([0.0, 0.004, 0.001] if next(pace) % 2 else [0.003, 0.0]))
        return made[-1]

    main = _Slow([0.002, 0.0, 0.005])
    verdict = check_scenario(scenario, main, seed=seed, max_runs=120, jobs=jobs, create_platform=create)
    return to_json(verdict), sum(one.runs for one in made)


@pytest.mark.parametrize(
    "fixed, concurrency, seed",
    [(False, 1, "j1"), (False, 2, "j2"), (True, 1, "j3"), (True, 2, "j4"), (False, 1, "j5"), (True, 1, "j6")],
)
def test_any_number_of_jobs_gives_one_jobs_bytes(fixed, concurrency, seed):
    """VIOLATED (shrunk trace and all) and BOUNDED alike: 2 and 3 jobs give the bytes of 1."""
    scenario = orders_scenario(fixed=fixed, concurrency=concurrency)
    one, _ = _check(scenario, seed, 1)
    for jobs in (2, 3):
        many, ahead = _check(scenario, seed, jobs)
        assert one == many, (jobs, seed)
        if '"runs":1,' not in one.replace(" ", ""):
            assert ahead > 0, "the other jobs ran nothing: the comparison proves nothing"


class _Named:
    """A platform instance the unit tests only tell apart."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.closed = False

    def close(self) -> None:
        self.closed = True


def _plan(scenario, prefix):
    return first_plan(scenario, "s", prefix, 1, max_short_batches=0)


def test_a_run_made_ahead_of_a_plan_the_loop_did_not_ask_for_is_dropped_and_its_failure_unseen():
    scenario = orders_scenario(fixed=True)
    a, b, c = _plan(scenario, [0]), _plan(scenario, [1]), _plan(scenario, [2])
    started_b = threading.Event()

    def perform(plan, platform):
        if plan == b:
            started_b.set()
            raise RuntimeError("a run nobody asked for failed")
        return (plan.prefix, platform.name)

    jobs = Jobs(main=_Named("main"), create=lambda: _Named("extra"), extra=1, perform=perform)
    try:
        assert ((0,), "main") == jobs.run(a, [b])[0]
        # The extra job starts after the first run and takes b, which the loop then does not ask for.
        assert started_b.wait(5)
        result, job = jobs.run(c, [])
        assert (2,) == result[0]
        assert jobs.wasted == 1
        with pytest.raises(RuntimeError, match="nobody asked"):
            jobs.run(b, [])
    finally:
        jobs.close()


def test_the_record_taken_is_the_asked_plans_whichever_job_ran_it():
    scenario = orders_scenario(fixed=True)
    plans = [_plan(scenario, [index]) for index in range(40)]
    made: list[_Named] = []
    jobs = Jobs(main=_Named("main"), create=lambda: made.append(_Named("extra")) or made[-1], extra=2, perform=lambda plan, platform: plan.prefix)
    try:
        for index, plan in enumerate(plans):
            assert (index,) == jobs.run(plan, plans[index + 1 : index + 3])[0]
    finally:
        jobs.close()
    assert 40 == sum(jobs.runs_by_job) - jobs.wasted
    # Each job closes the instance it made once the pool closes (and none is left running).
    for thread in jobs._threads:
        thread.join(5)
    assert 2 == len(made) and all(one.closed for one in made)


def test_usable_jobs_caps_by_the_runs_after_the_first_and_one_for_exhaustive():
    assert 4 == usable_jobs(4, max_runs=None, exhaustive=False)
    assert 2 == usable_jobs(4, max_runs=3, exhaustive=False)
    assert 1 == usable_jobs(4, max_runs=1, exhaustive=False)
    assert 1 == usable_jobs(4, max_runs=None, exhaustive=True)


def test_jobs_without_a_way_to_make_platforms_is_refused():
    with pytest.raises(UserError, match="create_platform"):
        check_scenario(orders_scenario(), ToyPlatform(), max_runs=5, jobs=2)


# -- Bazel shards (engine/shards.py): every shard's runs, merged, give one job's bytes ------------


def _shards(scenario, seed, total, max_runs):
    # Through JSON, as a shard's file carries them.
    return [
        json.loads(json.dumps(check_shard(scenario, ToyPlatform(), seed=seed, index=index, total=total, max_runs=max_runs, clock_ms=lambda: 0)))
        for index in range(total)
    ]


@pytest.mark.parametrize(
    "fixed, concurrency, max_faults, seed",
    [(False, 1, 2, "s1"), (False, 2, 2, "s2"), (True, 1, 2, "s3"), (True, 2, 2, "s4"), (False, 1, 1, "s5"), (True, 1, 1, "s6")],
)
def test_the_shards_runs_merged_give_one_jobs_bytes(fixed, concurrency, max_faults, seed):
    scenario = orders_scenario(fixed=fixed, concurrency=concurrency, max_faults=max_faults)
    one = to_json(check_scenario(scenario, ToyPlatform(), seed=seed, max_runs=150))
    for total in (1, 2, 3):
        shards = _shards(scenario, seed, total, 150)
        merging = ToyPlatform()
        merged = to_json(check_scenario(scenario, merging, seed=seed, max_runs=150, recorded=shards))
        assert one == merged, (seed, total)


def test_with_one_fault_per_run_the_shards_guess_every_plan_and_the_merge_runs_none_again():
    """The first run's count is all one fault's draws depend on (in a run whose turns do not vary)."""
    scenario = orders_scenario(fixed=True, max_faults=1, events=8)
    # No module-state check: it runs the first plans again, here as with one job.
    one = check_scenario(scenario, ToyPlatform(), seed="g", max_runs=30, module_state_runs=0)
    assert "bounded" == one["kind"] and not one["provenance"]["completed"]
    for total in (2, 3):
        merging = ToyPlatform()
        shards = _shards(scenario, "g", total, 30)
        merged = check_scenario(scenario, merging, seed="g", max_runs=30, recorded=shards, module_state_runs=0)
        assert to_json(one) == to_json(merged)
        assert [] == [plan for plan in merging.plans if plan["policy"]["kind"] == "seeded"]


def test_a_merge_refuses_shards_of_another_check_or_a_missing_one():
    scenario = orders_scenario(fixed=True)
    shards = _shards(scenario, "m", 2, 20)
    with pytest.raises(UserError, match="lack shard 1"):
        check_scenario(scenario, ToyPlatform(), seed="m", max_runs=20, recorded=shards[:1])
    with pytest.raises(UserError, match="another check"):
        check_scenario(scenario, ToyPlatform(), seed="other", max_runs=20, recorded=shards)
    with pytest.raises(UserError, match="another check"):
        check_scenario(scenario, ToyPlatform(), seed="m", max_runs=21, recorded=shards)
    with pytest.raises(UserError, match="maxRuns"):
        check_shard(scenario, ToyPlatform(), seed="m", index=0, total=2, clock_ms=lambda: 0)
