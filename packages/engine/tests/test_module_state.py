"""The module-state check: state that outlives a run turns BOUNDED into UNSUPPORTED."""

from eutaxy.engine.check import check_scenario

from toyplatform import ToyPlatform, orders_scenario


def test_a_leak_between_runs_is_module_state_leak():
    """A counter kept across runs shows in the log: rerun in reverse, run 1 differs."""
    verdict = check_scenario(orders_scenario(fixed=True, leak=True), ToyPlatform(), max_runs=5)
    assert "unsupported" == verdict["kind"]
    assert "module_state_leak" == verdict["cause"]["kind"]
    assert "run" in verdict["cause"]["detail"]


def test_the_check_reruns_the_first_runs_in_reverse_order():
    """After the exploration runs come the first N plans again, last first."""
    platform = ToyPlatform()
    verdict = check_scenario(orders_scenario(fixed=True), platform, max_runs=6, module_state_runs=3)
    assert "bounded" == verdict["kind"]
    assert 9 == len(platform.plans)
    assert [platform.plans[2], platform.plans[1], platform.plans[0]] == platform.plans[6:]


def test_zero_disables_the_check():
    """module_state_runs=0: no extra runs, and the leak goes unseen (the caller asked)."""
    platform = ToyPlatform()
    verdict = check_scenario(orders_scenario(fixed=True, leak=True), platform, max_runs=5, module_state_runs=0)
    assert "bounded" == verdict["kind"]
    assert 5 == len(platform.plans)


def test_the_check_runs_only_before_bounded():
    """A violation is reported as found; the module-state check does not run for it."""
    platform = ToyPlatform()
    verdict = check_scenario(orders_scenario(leak=True), platform, max_runs=100)
    assert "violated" == verdict["kind"]


def test_the_check_also_guards_an_exhaustive_bounded():
    """An enumeration that completes is still checked for leaks."""
    verdict = check_scenario(orders_scenario(events=1, max_faults=1, fixed=True, leak=True), ToyPlatform(), exhaustive=True)
    assert "unsupported" == verdict["kind"]
    assert "module_state_leak" == verdict["cause"]["kind"]
    assert verdict["exhaustive"]["completed"] is True
