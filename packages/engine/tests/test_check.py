"""The check API: verdicts as plain data, canonical, deterministic, free of wall-clock values."""

import json

import pytest

from eutaxy.core.canonical import to_json
from eutaxy.core.errors import UserError
from eutaxy.engine.bounds import resolve_bounds, with_bounds
from eutaxy.engine.check import check_scenario, default_seed
from eutaxy.engine.shrink import SHRINK_PASSES

from toyplatform import ToyPlatform, orders_scenario


def test_the_same_seed_gives_byte_identical_verdicts_whatever_the_clock():
    """Two checks with one seed and different wall clocks give the same JSON text."""
    slow = iter(range(0, 10**9, 7))
    one = check_scenario(orders_scenario(), ToyPlatform(), max_runs=300)
    two = check_scenario(orders_scenario(), ToyPlatform(), max_runs=300, clock_ms=lambda: next(slow))
    assert to_json(one) == to_json(two)
    assert json.loads(to_json(one)) == one


def test_a_violated_verdict_has_the_contracts_fields():
    """VIOLATED carries violation, trace, schedule, keptEvents, faultFree and provenance; no cause, no exhaustive."""
    verdict = check_scenario(orders_scenario(), ToyPlatform(), max_runs=300)
    assert {"schemaVersion", "kind", "scenario", "platform", "violation", "trace", "schedule", "keptEvents", "provenance", "invariants", "violations", "coverage", "faultFree"} == set(verdict)
    assert 1 == verdict["schemaVersion"]
    assert ("toy-orders", "toy") == (verdict["scenario"], verdict["platform"])
    assert {"invariant", "invariantKind", "keys", "effects", "rows", "message"} == set(verdict["violation"])
    assert {"faults", "turns"} == set(verdict["schedule"])
    provenance = verdict["provenance"]
    assert {
        "seed", "runs", "faultsInjected", "bounds", "boundsReached", "schedulePoints",
        "replayed", "notReplayed", "assumptions", "schedules", "completed", "shrinkReplays", "shrinkCapped",
        "shrinkPasses",
    } == set(provenance)
    assert provenance["shrinkReplays"] > 0 and provenance["shrinkCapped"] is False
    # Every pass by name in SHRINK_PASSES order; their replays are the shrinker's, less the final one.
    assert [name for name, _ in SHRINK_PASSES if name != "remove_one_short_batch"] == [count["name"] for count in provenance["shrinkPasses"]]
    assert {"name", "runs", "cached", "shrinks"} == set(provenance["shrinkPasses"][0])
    assert 0 < sum(count["runs"] for count in provenance["shrinkPasses"]) <= provenance["shrinkReplays"]
    assert sum(count["shrinks"] for count in provenance["shrinkPasses"]) >= 1
    assert verdict["violation"] == verdict["violations"][0]
    assert "toy-orders" == provenance["seed"]  # the scenario file's name
    assert provenance["schedulePoints"] >= 6
    assert ["the toy runs in one Python process"] == provenance["assumptions"]
    assert 300 == provenance["bounds"]["maxRuns"]


def test_a_bounded_verdict_names_the_bound_that_stopped_it():
    verdict = check_scenario(orders_scenario(fixed=True), ToyPlatform(), max_runs=25)
    assert "bounded" == verdict["kind"]
    assert {"schemaVersion", "kind", "scenario", "platform", "provenance", "invariants", "coverage"} == set(verdict)
    assert ["maxRuns"] == verdict["provenance"]["boundsReached"]
    assert 25 == verdict["provenance"]["runs"]
    assert verdict["provenance"]["faultsInjected"] > 0


def test_a_platforms_own_bounds_reach_its_plans_and_the_verdict_states_them():
    """A bound the platform adds (Workers' alarmsPerObject) rides in every plan and is stated beside the engine's."""
    scenario = orders_scenario()
    scenario["bounds"] = {**scenario.get("bounds", {}), "alarmsPerObject": 2}
    assert 2 == with_bounds(scenario, resolve_bounds(scenario))["bounds"]["alarmsPerObject"]
    verdict = check_scenario(scenario, ToyPlatform(), max_runs=5)
    assert 2 == verdict["provenance"]["bounds"]["alarmsPerObject"]
    assert 5 == verdict["provenance"]["bounds"]["maxRuns"]


def test_a_bound_the_platform_says_cannot_apply_is_not_stated():
    """A platform's describe() naming unusedBounds (an alarm bound without Durable Objects) keeps it out of the verdict."""
    scenario = orders_scenario()
    scenario["bounds"] = {**scenario.get("bounds", {}), "alarmsPerObject": 2}

    class WithoutAlarms(ToyPlatform):
        def describe(self):
            return {**super().describe(), "unusedBounds": ["alarmsPerObject"]}

    verdict = check_scenario(scenario, WithoutAlarms(), max_runs=5)
    assert "alarmsPerObject" not in verdict["provenance"]["bounds"]
    assert 5 == verdict["provenance"]["bounds"]["maxRuns"]


def test_an_unsupported_run_is_unsupported_with_its_cause():
    """A run the platform cannot control ends the check: UNSUPPORTED with the runtime's cause."""

    class Refusing(ToyPlatform):
        def run(self, plan):
            result = super().run(plan)
            if self.runs == 3:
                data = result.to_data()
                data["end"] = {"kind": "unsupported", "cause": "binding_not_allowed", "detail": "KV binding CACHE was touched"}
                return type(result).from_data(data)
            return result

    verdict = check_scenario(orders_scenario(fixed=True), Refusing(), max_runs=25)
    assert "unsupported" == verdict["kind"]
    assert {"kind": "binding_not_allowed", "detail": "KV binding CACHE was touched"} == verdict["cause"]
    assert 3 == verdict["provenance"]["runs"]


def test_progress_reports_runs_faults_and_time_but_the_verdict_does_not():
    """on_progress sees elapsed wall time; the verdict never does."""
    seen = []
    ticks = iter(range(0, 10**9, 150))
    verdict = check_scenario(orders_scenario(fixed=True), ToyPlatform(), max_runs=10, on_progress=seen.append, clock_ms=lambda: next(ticks))
    assert seen
    assert {"runs", "faults", "elapsedMs", "budgetMs"} == set(seen[-1])
    assert 10 == seen[-1]["runs"]
    assert "elapsedMs" not in to_json(verdict)


def test_the_default_seed_is_the_scenario_files_name():
    assert "queue-duplicate-write" == default_seed({"source": "/x/queue-duplicate-write.sim.py", "name": "other"})
    assert "named" == default_seed({"name": "named"})
    with pytest.raises(UserError):
        default_seed({})


def test_bad_bounds_are_the_users_to_fix():
    scenario = orders_scenario()
    scenario["bounds"]["faultProbability"] = 2
    with pytest.raises(UserError):
        check_scenario(scenario, ToyPlatform())
    with pytest.raises(UserError):
        check_scenario(orders_scenario(), ToyPlatform(), max_runs=0)


def test_an_invariant_that_selected_nothing_is_vacuous_not_bounded():
    """A selector for an op the toy never performs: UNSUPPORTED vacuous_invariant, naming the nearest effects."""
    scenario = orders_scenario(fixed=True)
    scenario["invariants"][0]["selector"]["op"] = "upsert"
    verdict = check_scenario(scenario, ToyPlatform(), max_runs=10, module_state_runs=0)
    assert "unsupported" == verdict["kind"]
    assert "vacuous_invariant" == verdict["cause"]["kind"]
    detail = verdict["cause"]["detail"]
    assert "'one insert per order'" in detail and "Toy:db upsert result" in detail
    assert "Toy:db insert result (same target, other op)" in detail
    assert [{"name": "one insert per order", "kind": "at_most_once_per_key", "effects": 0, "rows": 0, "keys": 0, "runs": 0}] == verdict["invariants"]


def test_allow_vacuous_lets_an_invariant_look_at_nothing():
    scenario = orders_scenario(fixed=True)
    scenario["invariants"][0]["selector"]["op"] = "upsert"
    scenario["invariants"][0]["allowVacuous"] = True
    verdict = check_scenario(scenario, ToyPlatform(), max_runs=10, module_state_runs=0)
    assert "bounded" == verdict["kind"]
    assert verdict["invariants"][0]["allowVacuous"] is True


def test_a_bounded_verdict_counts_what_each_invariant_saw():
    """Three orders, one insert each per run: three distinct keys over the check (not one per run and
    order), the distinct insert points (a redelivery's insert is a point of its own), seen in every run."""
    verdict = check_scenario(orders_scenario(fixed=True), ToyPlatform(), max_runs=25)
    [counted] = verdict["invariants"]
    assert 3 == counted["keys"] and 25 == counted["runs"]
    assert 3 <= counted["effects"] < 25


def test_a_scenario_with_no_invariants_is_bad_input():
    scenario = orders_scenario()
    scenario["invariants"] = []
    with pytest.raises(UserError, match="no invariants"):
        check_scenario(scenario, ToyPlatform(), max_runs=5)


def test_coverage_lists_each_point_with_the_kinds_allowed_and_injected():
    """Orders: a read allows crash_before and error, an insert the write ladder; the share is counted."""
    verdict = check_scenario(orders_scenario(events=1, max_faults=1, fixed=True), ToyPlatform(), max_runs=200)
    coverage = verdict["coverage"]
    points = {(p["target"], p["op"], p["ordinal"]): p for p in coverage["points"]}
    assert {("Toy:db", "get", 0), ("Toy:db", "insert", 1)} <= set(points)
    assert coverage["pairs"] == sum(len(p["kinds"]) for p in coverage["points"])
    assert coverage["exercised"] == sum(len(p["injected"]) for p in coverage["points"])
    assert coverage["pairs"] - coverage["exercised"] == len(coverage["missed"])
    assert verdict["provenance"]["completed"] and coverage["exercised"] == coverage["pairs"]


def test_the_audit_reruns_the_explored_runs_and_refuses_a_log_that_changes():
    """A platform whose logs differ on a rerun is UNSUPPORTED nondeterministic; the toy itself passes."""
    verdict = check_scenario(orders_scenario(fixed=True), ToyPlatform(), max_runs=20, module_state_runs=0, audit=True)
    assert "bounded" == verdict["kind"]
    assert {"reran": 20, "runs": 20, "differences": 0} == verdict["audit"]

    class Drifting(ToyPlatform):
        """The 25th run (the audit's fifth rerun) moves one effect a millisecond."""

        def run(self, plan):
            result = super().run(plan)
            if self.runs == 25:
                data = result.to_data()
                data["effects"][0]["time"] += 1
                return type(result).from_data(data)
            return result

    verdict = check_scenario(orders_scenario(fixed=True), Drifting(), max_runs=20, module_state_runs=0, audit=True)
    assert ("unsupported", "nondeterministic") == (verdict["kind"], verdict["cause"]["kind"])
    assert "run 5 of the check" in verdict["cause"]["detail"] and "first at effect 0" in verdict["cause"]["detail"]


def test_the_audit_samples_evenly_when_runs_are_many():
    from eutaxy.engine.audit import audit_sample

    assert [0, 1, 2] == audit_sample(3)
    sample = audit_sample(1000)
    assert 64 == len(sample) and 0 == sample[0] and 999 == sample[-1]


def test_a_violating_run_lists_every_invariant_it_breaks_the_shrinkers_target_first():
    """Two invariants over the same duplicate insert: the report names both, the shrunk-for one first."""
    scenario = orders_scenario()
    scenario["invariants"].append(dict(scenario["invariants"][0], name="no order inserted twice"))
    verdict = check_scenario(scenario, ToyPlatform(), max_runs=300)
    assert "violated" == verdict["kind"]
    assert verdict["violation"] == verdict["violations"][0]
    assert {"one insert per order", "no order inserted twice"} == {v["invariant"] for v in verdict["violations"]}
    assert 2 == len(verdict["violations"])
