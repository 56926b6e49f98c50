"""The partial-order reduction against brute force: the same outcomes and violations either way.

On small toy scenarios the enumerator runs once with the reduction and once without (every
order), and the sets of what the runs reached must be equal. A run's outcome is what no
reordering of commuting turns changes: each invocation's effects in its order and each
target's effects in theirs (kind, op and payload; the virtual time of a record is left out,
as two commuting effects swap their times), with the violations of the run. The toy's clock
reads (``more``) put the time read into the event's next effect, so a reduction that let a
turn that read the clock commute would miss an outcome here. Only complete schedules count:
a probe (a run the enumerator cut where it took a sleeping turn) is no schedule of its.
"""

from __future__ import annotations

import pytest

from eutaxy.core.canonical import to_json
from eutaxy.core.effects import as_effects
from eutaxy.core.invariants import check_invariants
from eutaxy.engine.bounds import resolve_bounds
from eutaxy.engine.exhaustive import Enumeration
from eutaxy.engine.plans import events_of
from eutaxy.engine.session import Session

from toyplatform import ToyPlatform, count_scenario, orders_scenario


def _outcome(scenario, result) -> str:
    by_invocation: dict[str, list] = {}
    by_target: dict[str, list] = {}
    for effect in result["effects"]:
        record = [effect["invocation"], effect["ordinal"], effect["op"], effect["kind"], effect["payload"]]
        by_invocation.setdefault(effect["invocation"], []).append(record)
        by_target.setdefault(effect["target"], []).append(record)
    effects = as_effects(result["effects"])
    violations = sorted(
        (v.invariant, list(v.keys)) for v in check_invariants(scenario["invariants"], effects, events_of(scenario))
    )
    return to_json({"invocations": by_invocation, "targets": by_target, "violations": violations})


def _reached(scenario, *, reduction):
    platform = ToyPlatform(record=False)
    session = Session(
        platform=platform,
        scenario=scenario,
        seed="brute-force",
        bounds=resolve_bounds(scenario),
        clock_ms=lambda: 0,
        keep_first=0,
    )
    enumeration = Enumeration(session=session, reduction=reduction)
    reached = set()
    # Every schedule, past violations too (the exploration loop would stop at the first). A
    # probe (a run cut where it took a sleeping turn) is not a schedule and does not count.
    while not enumeration.finished():
        schedules = enumeration.schedules
        record = session.explore(enumeration.next_plan())
        assert enumeration.observe(record) is None
        if enumeration.schedules > schedules:
            reached.add(_outcome(scenario, record.result.to_data()))
    assert enumeration.report() == {"completed": True, "schedules": enumeration.schedules, "reduction": reduction}
    return reached, enumeration.schedules


def _orders(**kwargs):
    scenario = orders_scenario(**kwargs)
    scenario["bounds"]["maxRedeliveries"] = 1
    return scenario


CASES = [
    pytest.param(count_scenario(events=k, effects=n, faults=m, targets=targets, checked=True, **more), id=f"k{k}n{n}m{m}-{targets}-{name}")
    for k, n, m in ((2, 1, 0), (2, 2, 0), (2, 2, 1), (3, 1, 0), (3, 1, 1), (3, 2, 0))
    for targets in ("independent", "shared")
    for name, more in (
        ("pure", {}), ("first-reads-clock", {"more": ["msg-1"]}), ("last-reads-clock", {"more": [f"msg-{k}"]}), ("all-read-clock", {"more": True})
    )
] + [
    pytest.param(_orders(events=2, max_faults=1, concurrency=2), id="orders-2-buggy"),
    pytest.param(_orders(events=2, max_faults=1, concurrency=2, fixed=True), id="orders-2-fixed"),
]


@pytest.mark.parametrize("scenario", CASES)
def test_the_reduction_reaches_every_outcome_brute_force_reaches(scenario):
    reduced, reduced_schedules = _reached(scenario, reduction=True)
    every, all_schedules = _reached(scenario, reduction=False)
    assert every == reduced
    assert reduced_schedules <= all_schedules


def test_the_cross_check_can_tell_orders_apart():
    """The clock reads make orders show: brute force reaches more outcomes when an event reads
    the clock than when none does (so a reduction that skipped such an order would fail above)."""
    pure, _ = _reached(count_scenario(events=2, effects=2, targets="independent", checked=True), reduction=False)
    reads, _ = _reached(count_scenario(events=2, effects=2, targets="independent", checked=True, more=["msg-1"]), reduction=False)
    assert 1 == len(pure) < len(reads)
