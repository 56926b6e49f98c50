"""Typed simulation verdicts and their JSON data: cattrs at the edge, camelCase names, optional fields omitted."""

from __future__ import annotations

import pytest

from eutaxy.core.canonical import to_json
from eutaxy.core.effects import Effect
from eutaxy.core.protocol import EndState
from eutaxy.core.schedule import FaultAt, Schedule
from eutaxy.core.verdict_data import VerdictDataError, verdict_data, verdict_from_data
from eutaxy.core.verdicts import (
    Bounded,
    Cause,
    Coverage,
    CoverageMiss,
    CoveragePoint,
    Divergence,
    FaultFree,
    InvariantSeen,
    Provenance,
    ShrinkPassCount,
    SnapshotName,
    Unsupported,
    Violated,
    simulation_verdict,
)
from eutaxy.core.violations import Violation


def _provenance(**changes):
    fields = dict(seed="s", runs=3, faults_injected=1, bounds={"maxRuns": 3}, bounds_reached=["maxRuns"], schedules=3)
    return Provenance(**{**fields, **changes})


def _effect(kind, ordinal=0, invocation="msg-1#1"):
    return Effect(target="D1:DB", op="run", kind=kind, payload={"args": {}}, invocation=invocation, ordinal=ordinal, time=1)


def _violated():
    violation = Violation(invariant="once", invariant_kind="at_most_once_per_key", keys=['"o-1"'], effects=[0], message="m")
    schedule = Schedule(faults=(FaultAt(invocation="msg-1#1", ordinal=0, fault="crash_after"),))
    return simulation_verdict(
        "violated",
        scenario="q",
        platform="cloudflare",
        provenance=_provenance(
            shrink_replays=4,
            shrink_capped=False,
            shrink_passes=(ShrinkPassCount(name="remove_one_fault", runs=3, cached=1, shrinks=1),),
        ),
        violation=violation,
        trace=[_effect("call"), _effect("result")],
        schedule=schedule,
        kept_events=["msg-1"],
        violations=(violation,),
        fault_free=FaultFree(
            changed="faults",
            schedule=Schedule(),
            end=EndState(),
            trace=(_effect("call"),),
            divergence=Divergence(agreed_points=1, violating=(_effect("call", 1),)),
            state_differs=(SnapshotName(target="D1:DB", op="payments"),),
        ),
        invariants=(InvariantSeen(name="once", kind="at_most_once_per_key", effects=2, keys=2),),
        coverage=Coverage(
            points=(CoveragePoint(target="D1:DB", op="run", ordinal=0, kinds=("error",), injected=()),),
            pairs=1,
            missed=(CoverageMiss(target="D1:DB", op="run", ordinal=0, fault="error"),),
        ),
    )


def test_a_violated_verdict_has_the_contract_names_and_reads_back_equal():
    """camelCase names, the violation's invariantKind, the missed pair's fault, and structuring gives the same verdict."""
    verdict = _violated()
    data = verdict_data(verdict)
    assert ["msg-1"] == data["keptEvents"]
    assert 1 == data["schemaVersion"]
    assert {"target": "D1:DB", "op": "run", "ordinal": 0, "fault": "error"} == data["coverage"]["missed"][0]
    assert ("violated", "at_most_once_per_key") == (data["kind"], data["violation"]["invariantKind"])
    assert "kind" not in data["violation"]
    assert 1 == data["faultFree"]["divergence"]["agreedPoints"]
    assert [{"target": "D1:DB", "op": "payments"}] == data["faultFree"]["stateDiffers"]
    assert {"kind": "completed"} == data["faultFree"]["end"]
    assert (4, False) == (data["provenance"]["shrinkReplays"], data["provenance"]["shrinkCapped"])
    assert [{"name": "remove_one_fault", "runs": 3, "cached": 1, "shrinks": 1}] == data["provenance"]["shrinkPasses"]
    assert verdict == verdict_from_data(data)
    assert to_json(data) == to_json(verdict_data(verdict_from_data(data)))


def test_optional_fields_are_left_out_while_they_hold_their_default():
    """No audit, exhaustive, coreCalls, specs, restarts, shrink counts or allowVacuous unless set."""
    data = verdict_data(Bounded(scenario="q", platform="aws", provenance=_provenance(),
                                invariants=(InvariantSeen(name="i", kind="unique"),)))
    assert {"schemaVersion", "kind", "scenario", "platform", "provenance", "invariants", "coverage"} == set(data)
    assert "restarts" not in data["provenance"] and "shrinkReplays" not in data["provenance"]
    assert "shrinkPasses" not in data["provenance"]
    assert {"name": "i", "kind": "unique", "effects": 0, "rows": 0, "keys": 0, "runs": 0} == data["invariants"][0]
    assert "config" not in data["provenance"]
    vacuous = InvariantSeen(name="i", kind="unique", allow_vacuous=True)
    assert verdict_data(Bounded(scenario="q", platform="aws", provenance=_provenance(), invariants=(vacuous,)))[
        "invariants"][0]["allowVacuous"] is True


def test_each_kind_carries_exactly_its_own_fields():
    """A cause exactly on UNSUPPORTED; a trace exactly on VIOLATED; the kind matches the class."""
    unsupported = Unsupported(scenario="q", platform="aws", provenance=_provenance(), cause=Cause(kind="cpu_bound", detail="d"))
    assert {"kind": "cpu_bound", "detail": "d"} == verdict_data(unsupported)["cause"]
    with pytest.raises(AssertionError):
        simulation_verdict("bounded", scenario="q", platform="aws", provenance=_provenance(), cause=Cause(kind="cpu_bound"))
    with pytest.raises(ValueError):
        Bounded(kind="violated", scenario="q", platform="aws", provenance=_provenance())
    assert isinstance(verdict_from_data(verdict_data(unsupported)), Unsupported)


def test_data_that_does_not_read_names_each_field_at_fault():
    """An unknown kind, a missing field, a wrong type: the error gives the JSON path."""
    with pytest.raises(VerdictDataError, match=r"\$\.kind: 'flaky' is not a simulation verdict kind"):
        verdict_from_data({"kind": "flaky"})
    data = verdict_data(_violated())
    del data["keptEvents"]
    data["faultFree"]["divergence"]["agreedPoints"] = "x"
    with pytest.raises(VerdictDataError) as error:
        verdict_from_data(data)
    assert "required field missing @ $.keptEvents" in str(error.value)
    assert "@ $.faultFree.divergence.agreedPoints" in str(error.value)


def test_shrink_pass_counts_come_only_with_shrink_replays_and_never_exceed_them():
    """Pass counts without shrink replays, or whose runs sum past them, are refused."""
    count = ShrinkPassCount(name="remove_one_fault", runs=3, cached=0, shrinks=1)
    with pytest.raises(AssertionError):
        _provenance(shrink_passes=(count,))
    with pytest.raises(AssertionError):
        _provenance(shrink_replays=2, shrink_capped=False, shrink_passes=(count,))
    assert (count,) == _provenance(shrink_replays=3, shrink_capped=False, shrink_passes=[count]).shrink_passes


def test_console_lines_round_trip_and_are_left_out_when_empty():
    """``console``, ``faultFree.console`` and ``firstRunConsole`` read back as written; empty, they are absent."""
    from eutaxy.core.verdict_data import verdict_data, verdict_from_data

    line = {"invocation": None, "ordinal": None, "time": 1767225600000, "level": "log", "text": "loaded"}
    data = {
        "schemaVersion": 1, "kind": "bounded", "scenario": "s", "platform": "cloudflare",
        "provenance": {"seed": "s", "runs": 1, "faultsInjected": 0, "bounds": {}, "boundsReached": [],
                       "schedulePoints": 0, "replayed": 0, "notReplayed": 0, "assumptions": [],
                       "schedules": 1, "completed": False},
        "firstRunConsole": [line],
    }
    verdict = verdict_from_data(data)
    assert "loaded" == verdict.first_run_console[0].text
    assert [line] == verdict_data(verdict)["firstRunConsole"]
    assert "firstRunConsole" not in verdict_data(verdict_from_data({k: v for k, v in data.items() if k != "firstRunConsole"}))
