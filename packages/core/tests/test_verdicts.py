"""Verdict data: the fields each kind carries, and nothing that could differ between runs."""

from __future__ import annotations

import pytest

from eutaxy.core import verdicts as v
from eutaxy.core.canonical import to_json
from eutaxy.core.effects import Effect
from eutaxy.core.errors import UserError
from eutaxy.core.schedule import FaultAt, Schedule
from eutaxy.core.verdict_data import verdict_data, verdict_from_data
from eutaxy.core.violations import Violation


def _provenance():
    return v.Provenance(seed="s", runs=3, faults_injected=1, bounds={"maxFaultsPerRun": 1}, assumptions=["a"])


def test_provenance_round_trip():
    """Provenance data is camelCase and reads back."""
    verdict = v.Bounded(scenario="q", platform="aws", provenance=_provenance())
    data = verdict_data(verdict)["provenance"]
    assert {"seed", "runs", "faultsInjected", "bounds", "boundsReached", "schedulePoints", "replayed", "notReplayed", "assumptions", "schedules", "completed"} == set(data)
    assert verdict == verdict_from_data(verdict_data(verdict))


def test_violated_carries_trace_and_schedule():
    """A VIOLATED verdict has violation, trace, schedule and keptEvents; canonical JSON is stable."""
    effect = Effect("D1:DB", "run", "result", {}, "msg-1#1", 0, 1)
    verdict = v.simulation_verdict(
        v.VIOLATED,
        scenario="q",
        platform="cloudflare",
        provenance=_provenance(),
        violation=Violation("inv", "at_most_once_per_key", ['"o-1"'], [0], [], "m"),
        trace=[effect],
        schedule=Schedule(faults=[FaultAt("msg-1#1", 0, "crash_after")]),
        kept_events=["msg-1"],
    )
    assert isinstance(verdict, v.Violated)
    verdict = verdict_data(verdict)
    assert 1 == verdict["schemaVersion"]
    assert ["msg-1"] == verdict["keptEvents"]
    assert "cause" not in verdict
    assert to_json(verdict) == to_json(dict(reversed(list(verdict.items()))))
    assert 1 == v.exit_code(v.VIOLATED)


def test_unsupported_needs_a_cause():
    """UNSUPPORTED names its cause; BOUNDED carries neither a violation nor a cause."""
    verdict = v.simulation_verdict(
        v.UNSUPPORTED, scenario="q", platform="aws", provenance=_provenance(), cause=v.Cause(v.MODULE_STATE_LEAK, "logs differ")
    )
    assert {"kind": "module_state_leak", "detail": "logs differ"} == verdict_data(verdict)["cause"]
    with pytest.raises(AssertionError):
        v.simulation_verdict(v.UNSUPPORTED, scenario="q", platform="aws", provenance=_provenance())
    bounded = v.simulation_verdict(v.BOUNDED, scenario="q", platform="aws", provenance=_provenance())
    assert "violation" not in verdict_data(bounded) and "cause" not in verdict_data(bounded)
    assert 0 == v.exit_code(v.BOUNDED) and 2 == v.exit_code(v.UNSUPPORTED)


def test_the_exit_code_is_the_worst_of_what_a_check_or_report_found():
    """A failing spec makes BOUNDED 1 and never lowers UNSUPPORTED; checking less is 2; UNKNOWN never fails."""
    assert 0 == v.exit_code()
    assert 0 == v.exit_code(v.BOUNDED, spec_kinds=[v.TESTED, v.UNKNOWN, v.PROVEN, v.CHECKED])
    assert 1 == v.exit_code(v.BOUNDED, spec_kinds=[v.TESTED, v.REFUTED])
    assert 1 == v.exit_code(spec_kinds=[v.CONFLICT])
    assert 1 == v.exit_code(spec_kinds=[v.TESTED], below_min_inside=True)
    assert 2 == v.exit_code(v.UNSUPPORTED, spec_kinds=[v.REFUTED])
    assert 2 == v.exit_code(spec_kinds=[v.REFUTED], checked_less=True)
    assert 1 == v.exit_code(v.VIOLATED, spec_kinds=[v.TESTED])
    with pytest.raises(KeyError):
        v.exit_code("verified")


def test_spec_verdicts():
    """Spec verdicts name rung, counts, engine and reasons; UNKNOWN needs a reason."""
    tested = v.SpecVerdict(kind=v.TESTED, property="withinCaptured", rung=v.TESTED, counts={"checked": 3, "tested": 100}, seed="s")
    assert tested == v.SpecVerdict.from_data(tested.to_data())
    unknown = v.SpecVerdict(kind=v.UNKNOWN, property="p", reasons=[v.GAVE_UP, v.UNAVAILABLE])
    assert ["gave_up", "unavailable"] == unknown.to_data()["reasons"]
    with pytest.raises(AssertionError):
        v.SpecVerdict(kind=v.UNKNOWN, property="p")
    with pytest.raises(UserError):
        v.SpecVerdict(kind="verified", property="p")
    proven = v.SpecVerdict(kind=v.PROVEN, property="p", rung=v.PROVEN, engine={"name": "z3", "version": "4.13"})
    assert {"name": "z3", "version": "4.13"} == proven.to_data()["engine"]


def test_unsupported_causes_come_from_the_registry():
    """UNSUPPORTED_CAUSES is vectors/causes.json's names; the constants Python uses are in it.

    Which causes the sources emit is packages/cli/tests/test_causes.py's scan.
    """
    import json
    import pathlib

    registry = json.loads(pathlib.Path(v.__file__).with_name("vectors").joinpath("causes.json").read_text())
    assert sorted(entry["name"] for entry in registry["causes"]) == list(v.UNSUPPORTED_CAUSES)
    for name in (v.MODULE_STATE_LEAK, v.NOT_REPLAYABLE, v.CPU_BOUND, v.VACUOUS_INVARIANT, v.NONDETERMINISTIC):
        assert name in v.CAUSES
    # Names no side emits are gone (the runtime says unseen_wait and effect_hung).
    assert "invisible_wait" not in v.CAUSES and "budget_exceeded" not in v.CAUSES
    assert "unseen_wait" in v.CAUSES and "effect_hung" in v.CAUSES
