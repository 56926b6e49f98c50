"""Seeded exploration: faults by position, drawn from the seed, the same plans for the same seed."""

from eutaxy.core.prng import seed_words
from eutaxy.core.protocol import RunResult
from eutaxy.engine.check import check_scenario
from eutaxy.engine.seeded import SeededPlanner

from toyplatform import ToyPlatform, orders_scenario


def _policies(platform, kind="seeded"):
    return [plan["policy"] for plan in platform.plans if plan["policy"]["kind"] == kind]


def test_same_seed_same_plans():
    """Two checks with one seed send byte-identical plans; another seed sends other plans."""
    first, second, other = ToyPlatform(), ToyPlatform(), ToyPlatform()
    scenario = orders_scenario(fixed=True)
    check_scenario(scenario, first, seed="a", max_runs=60, module_state_runs=0)
    check_scenario(scenario, second, seed="a", max_runs=60, module_state_runs=0)
    check_scenario(scenario, other, seed="b", max_runs=60, module_state_runs=0)
    assert 60 == len(first.plans)
    assert first.plans == second.plans
    assert _policies(first) != _policies(other)


def test_first_run_injects_nothing_and_later_runs_place_faults_within_the_measured_points():
    """Run 1 has no faults; later positions lie below the most points any run has had."""
    platform = ToyPlatform()
    check_scenario(orders_scenario(fixed=True), platform, max_runs=200, module_state_runs=0)
    policies = _policies(platform)
    assert {} == policies[0]["faults"]
    most = max(result["eligible"] for result in platform.results)
    fault_free = platform.results[0]["eligible"]
    assert 6 == fault_free  # three events, a read and an insert each
    faulted = [p["faults"] for p in policies[1:] if p["faults"]]
    assert faulted
    for faults in faulted:
        positions = sorted(int(k) for k in faults)
        assert 1 <= len(positions) <= 2
        assert positions[0] < fault_free
        assert positions[-1] < most
        assert all(0 <= word < 2**32 for word in faults.values())


def test_fault_probability_is_the_share_of_later_runs_with_faults():
    """With faultProbability 0.5 about half the later runs inject faults; with 0 none do."""
    planner = SeededPlanner(seed="half", max_faults_per_run=2, fault_probability=0.5)
    planner.observe(RunResult(eligible=6))
    share = sum(1 for _ in range(400) if planner.draw_faults()) / 400
    assert 0.4 < share < 0.6
    none = ToyPlatform()
    scenario = orders_scenario(fixed=True)
    scenario["bounds"]["faultProbability"] = 0
    verdict = check_scenario(scenario, none, max_runs=50, module_state_runs=0)
    assert all(not p["faults"] for p in _policies(none))
    assert 0 == verdict["provenance"]["faultsInjected"]
    # A sequential run without faults has one schedule: it runs once, and that is all of them.
    assert (1, 1, True, []) == (
        verdict["provenance"]["runs"], verdict["provenance"]["schedules"],
        verdict["provenance"]["completed"], verdict["provenance"]["boundsReached"],
    )


def test_every_point_is_faulted_about_as_often():
    """Faults are placed by position: the first and the last eligible point are hit alike."""
    planner = SeededPlanner(seed="uniform", max_faults_per_run=1, fault_probability=1.0)
    planner.observe(RunResult(eligible=6))
    hits = [0] * 6
    for _ in range(6000):
        for position in planner.draw_faults():
            hits[position] += 1
    assert min(hits) > 850 and max(hits) < 1150


def test_later_faults_come_after_the_first_up_to_the_most_points_any_run_had():
    """A run with a redelivery grows the range of the second fault, never of the first."""
    planner = SeededPlanner(seed="ranges", max_faults_per_run=3, fault_probability=1.0)
    planner.observe(RunResult(eligible=4))
    planner.observe(RunResult(eligible=9, decisions=()))  # a longer fault-free path
    planner.most_fault_free = 4  # as if the longer run had injected a fault
    seen_late = False
    for _ in range(500):
        positions = sorted(planner.draw_faults())
        assert positions[0] < 4
        assert len(set(positions)) == len(positions)
        assert all(p < 9 for p in positions)
        seen_late |= positions[-1] >= 4
    assert seen_late


def test_plan_stream_is_the_seeds_derived_plan_stream():
    """The planner draws from seed_words(seed, "plan"), which the JavaScript side can rebuild."""
    from eutaxy.core.prng import Xoshiro128

    planner = SeededPlanner(seed="s", max_faults_per_run=1, fault_probability=1.0)
    planner.observe(RunResult(eligible=5))
    stream = Xoshiro128(seed_words("s", "plan"))
    stream.random()
    stream.below(1)
    position = stream.below(5)
    word = stream.next_u32()
    assert {position: word} == planner.draw_faults()


def test_exploration_stops_at_max_runs_and_at_the_budget():
    """max_runs caps the runs; the budget (a test clock, 400 ms per read) stops once spent.

    The clock is read when the check starts (0) and before each run after the first
    (400, 800, 1200): the fourth run would start past the 1000 ms budget.
    """
    verdict = check_scenario(orders_scenario(fixed=True), ToyPlatform(), max_runs=17, module_state_runs=0)
    assert "bounded" == verdict["kind"]
    assert 17 == verdict["provenance"]["runs"]
    assert ["maxRuns"] == verdict["provenance"]["boundsReached"]
    ticks = iter(range(0, 10**6, 400))
    verdict = check_scenario(
        orders_scenario(fixed=True), ToyPlatform(), budget_ms=1000, module_state_runs=0, clock_ms=lambda: next(ticks)
    )
    assert ["budgetMs"] == verdict["provenance"]["boundsReached"]
    assert 3 == verdict["provenance"]["runs"]


def test_the_seeded_kind_is_always_one_the_point_allows():
    """Whatever the draw, the runtime injects allowed[draw % len(allowed)]: every injected kind is allowed."""
    platform = ToyPlatform()
    check_scenario(orders_scenario(fixed=True), platform, max_runs=300, module_state_runs=0)
    for plan, result in zip(platform.plans, platform.results):
        if plan["policy"]["kind"] != "seeded":
            continue
        faults = plan["policy"]["faults"]
        fault_decisions = [d for d in result["decisions"] if d["kind"] == "fault"]
        for ordinal, decision in enumerate(fault_decisions):
            if str(ordinal) in faults:
                allowed = decision["options"][1:]
                assert allowed[faults[str(ordinal)] % len(allowed)] == decision["options"][decision["chosen"]]
            else:
                assert 0 == decision["chosen"]


def test_a_two_schedule_space_ends_completed_after_two_distinct_runs():
    """One point with one fault kind: the fault-free run and the faulted one are all there is."""
    from toyplatform import count_scenario

    verdict = check_scenario(count_scenario(events=1, effects=1, faults=1, kinds=1, checked=True), ToyPlatform(), max_runs=100)
    assert "bounded" == verdict["kind"]
    provenance = verdict["provenance"]
    assert (2, 2, True, []) == (provenance["runs"], provenance["schedules"], provenance["completed"], provenance["boundsReached"])


def test_a_run_with_no_eligible_point_and_no_turn_choice_ends_exploration_at_once():
    scenario = orders_scenario(fixed=True)
    scenario["bounds"]["maxFaultsPerRun"] = 0
    verdict = check_scenario(scenario, ToyPlatform(), max_runs=100, module_state_runs=0)
    assert (1, True) == (verdict["provenance"]["runs"], verdict["provenance"]["completed"])


def test_seeded_exploration_never_reruns_a_schedule_and_enumerates_what_is_left():
    """Every run is a new schedule; a small space is used up and reported completed."""
    platform = ToyPlatform()
    verdict = check_scenario(orders_scenario(events=2, max_faults=2, fixed=True), platform, max_runs=500, module_state_runs=0)
    provenance = verdict["provenance"]
    assert provenance["runs"] == provenance["schedules"]
    assert provenance["completed"] and [] == provenance["boundsReached"]
    assert any(plan["policy"]["kind"] == "first" for plan in platform.plans), "the rest was enumerated"
    assert provenance["runs"] < 500
