"""Bounds are cuts, never semantics: what a run's cuts do to its verdict.

The toy platform records no cuts of its own; ``Cutting`` drops every effect of ``msg-1``
and reports that a bound cut it (as a queue reports a message ``maxRedeliveries`` stopped
before the platform's own limit), so the rule is tested apart from any real runtime.
"""

from eutaxy.core.protocol import RunResult
from eutaxy.engine.check import check_scenario

from toyplatform import ToyPlatform, orders_scenario

CUT = {"bound": "maxRedeliveries", "where": "Queue:toy", "invocation": "msg-1#3", "left": ["msg-1"], "limit": 2, "platformLimit": 3}


class Cutting(ToyPlatform):
    """The toy with ``msg-1`` left undone: its effects dropped, and a cut naming it when ``cut``."""

    def __init__(self, *, cut: bool = True) -> None:
        super().__init__(record=False)
        self.cut = cut

    def run(self, plan):
        data = super().run(plan).to_data()
        data["effects"] = [e for e in data["effects"] if not str(e["invocation"]).startswith("msg-1#")]
        if self.cut and data["end"]["kind"] == "completed":
            data["cuts"] = [CUT]
        return RunResult.from_data(data)


def _scenario(*invariants, fixed=True):
    scenario = orders_scenario(fixed=fixed)
    return {**scenario, "invariants": [*scenario["invariants"], *invariants]}


EVERY_MESSAGE = {
    "kind": "at_least_once_per_message", "name": "every order inserted", "drive": "toy",
    "selector": {"target": "Toy:db", "op": "insert", "kind": "result"}, "key": "args.key", "bodyKey": "key",
}
ORDER_ONE = {
    "kind": "at_least_once", "name": "order one inserted",
    "selector": {"target": "Toy:db", "op": "insert", "kind": "result"}, "key": "args.key", "expected": ["o-1"],
}


def test_a_message_a_bound_cut_is_neither_met_nor_lost():
    """at_least_once_per_message holds the cut message to nothing: BOUNDED, the cut named with its counts."""
    verdict = check_scenario(_scenario(EVERY_MESSAGE), Cutting(), max_runs=20)
    assert "bounded" == verdict["kind"]
    provenance = verdict["provenance"]
    assert ["maxRuns", "maxRedeliveries"] == provenance["boundsReached"]
    [count] = provenance["cuts"]
    assert {"bound": "maxRedeliveries", "runs": 20, "cuts": 20, "limit": 2, "platformLimit": 3,
            "where": ["Queue:toy"], "left": ["msg-1"]} == count
    assert "undetermined" not in provenance


def test_without_the_cut_the_same_loss_is_violated():
    """The control: the same missing effects with no cut are a lost message."""
    verdict = check_scenario(_scenario(EVERY_MESSAGE), Cutting(cut=False), max_runs=20)
    assert ("violated", "every order inserted") == (verdict["kind"], verdict["violation"]["invariant"])


def test_a_break_a_cut_could_repair_is_undetermined_and_counted():
    """at_least_once (and any state invariant) broken in a run with a cut is undetermined, never VIOLATED."""
    verdict = check_scenario(_scenario(ORDER_ONE), Cutting(), max_runs=20)
    assert "bounded" == verdict["kind"]
    assert [{"invariant": "order one inserted", "runs": 20, "bounds": ["maxRedeliveries"]}] == verdict["provenance"]["undetermined"]


def test_a_break_no_continuation_repairs_stands_under_a_cut():
    """A duplicate is a duplicate however the run would have gone on: VIOLATED, resting on no cut."""
    verdict = check_scenario(orders_scenario(), Cutting(), max_runs=300)
    assert "violated" == verdict["kind"]
    assert "maxRedeliveries" in verdict["provenance"]["boundsReached"]
