"""The check's outcome rule: a pass needs a handler that returned normally in a fault-free run.

The toy platform reports no invocations of its own; these wrappers add one outcome per
invocation of each run, so the rule is tested apart from any real runtime.
"""

from eutaxy.engine.check import check_scenario

from toyplatform import ToyPlatform, orders_scenario


class Reporting(ToyPlatform):
    """The toy, with every invocation reported as ``outcome`` (``threw`` with one error)."""

    def __init__(self, outcome: str) -> None:
        super().__init__(record=False)
        self.outcome = outcome

    def run(self, plan):
        result = super().run(plan)
        data = result.to_data()
        invocations = list(dict.fromkeys(e["invocation"] for e in data["effects"] if e["kind"] != "snapshot"))
        error = {"error": {"name": "KeyError", "message": "'TABLE'", "at": "handler.py:3"}} if self.outcome == "threw" else {}
        data["invocations"] = [{"invocation": one, "drive": "queue", "outcome": self.outcome, **error} for one in invocations]
        return type(result).from_data(data)


def test_a_check_whose_handler_never_returned_is_unsupported_handler_never_succeeded():
    """No violation, but every invocation threw: the pass would rest on nothing, so exit 2 naming the error."""
    verdict = check_scenario(orders_scenario(fixed=True), Reporting("threw"), max_runs=20)
    assert ("unsupported", "handler_never_succeeded") == (verdict["kind"], verdict["cause"]["kind"])
    assert verdict["cause"]["detail"].startswith("the handler failed: KeyError: 'TABLE' (at handler.py:3), first in msg-1#1; ")
    [counts] = verdict["outcomes"]
    assert (0, False) == (counts["returned"], counts["succeededFaultFree"])
    assert counts["threw"] >= counts["faultFreeInvocations"] > 0


def test_expect_failures_keeps_the_usual_verdict_and_states_the_counts():
    """expectFailures: the same check is BOUNDED, its outcomes still saying every invocation threw."""
    verdict = check_scenario({**orders_scenario(fixed=True), "expectFailures": True}, Reporting("threw"), max_runs=20)
    assert "bounded" == verdict["kind"]
    assert 0 == verdict["outcomes"][0]["returned"]


def test_a_violation_stands_whatever_the_handler_did():
    """A broken invariant is VIOLATED even when no invocation returned: the rule only refuses passes."""
    verdict = check_scenario(orders_scenario(), Reporting("crashed"), max_runs=300)
    assert "violated" == verdict["kind"]
    assert verdict["invocations"]


def test_a_handler_that_returned_passes_with_its_counts():
    """Every invocation returned: BOUNDED, with the counts of the exploration runs."""
    verdict = check_scenario(orders_scenario(fixed=True), Reporting("returned"), max_runs=20)
    assert "bounded" == verdict["kind"]
    [counts] = verdict["outcomes"]
    assert (True, 0) == (counts["succeededFaultFree"], counts["threw"])
    assert "firstError" not in counts
