"""The ladder after a check: CHECKED on recorded Core calls (plain data here), then TESTED, folded."""

from pathlib import Path

import pytest

from eutaxy.prover.scenario_specs import calls_by_function, run_scenario_specs, spec_file_for
from prover_support import LONG, LONGER, REFUNDS_DOMAIN, REFUNDS_PROPS




def _call(function, args, result, run=0, invocation="req-1#1", ordinal=1):
    return {"function": function, "args": args, "result": result,
            "firstSeen": {"run": run, "invocation": invocation, "ordinal": ordinal}}


REFUNDS = [
    _call("decideRefund", [{"totalCents": 1000, "refundedCents": 0}, 600], {"ok": True, "refunded": 600}),
    _call("decideRefund", [{"totalCents": 1000, "refundedCents": 0}, 400], {"ok": True, "refunded": 400},
          invocation="req-2#1"),
    _call("decideRefund", [{"totalCents": 1000, "refundedCents": 600}, 400], {"ok": True, "refunded": 1000}, run=3),
]


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("scenario")
    (root / "domain.ts").write_text(REFUNDS_DOMAIN)
    (root / "domain.props.ts").write_text(REFUNDS_PROPS)
    (root / "shell.ts").write_text("export function plain(): number { return 1; }\n")
    return root


def _by_property(result) -> dict:
    return {p["property"]: p for m in result["modules"] for p in m["properties"]}


def test_the_spec_file_is_beside_the_module():
    assert Path("/a/domain.props.ts") == spec_file_for("/a/domain.ts")
    assert Path("/a/core.props.ts") == spec_file_for(Path("/a/core.mts"))


def test_calls_by_function_keeps_the_verdicts_order_and_drops_where_seen():
    calls = calls_by_function(REFUNDS + [_call("initials", ["x"], "x")])
    assert ["decideRefund", "initials"] == sorted(calls)
    assert [600, 400, 400] == [c["args"][1] for c in calls["decideRefund"]]
    assert {"args": ["x"], "result": "x"} == calls["initials"][0]


def test_a_call_whose_arguments_are_not_a_list_is_no_assignment(project, toolchain):
    """A runtime that could not record the arguments (JSON has no bigint) gives no input, and says so."""
    calls = REFUNDS + [_call("decideRefund", "1,2", None)]
    assert 3 == len(calls_by_function(calls)["decideRefund"])
    result = run_scenario_specs(project, [project / "domain.ts"], calls, "seed-1", toolchain=toolchain)
    assert {"decideRefund": 1} == result["unusableCalls"]
    assert "tested" == _by_property(result)["withinTotal"]["kind"]


def test_a_true_claim_is_tested_saying_on_how_many_recorded_calls_it_also_held(project, toolchain):
    result = run_scenario_specs(project, [project / "domain.ts"], REFUNDS, "seed-1", toolchain=toolchain)
    within = _by_property(result)["withinTotal"]
    assert ("tested", "tested") == (within["kind"], within["rung"])
    assert 3 == within["counts"]["checked"] and within["counts"]["tested"] > 0
    assert "also held on 3 of the simulator's inputs" in within["detail"]
    assert {"calls": 3, "evaluated": 3, "kind": "checked"} == {k: within["checked"][k] for k in ("calls", "evaluated", "kind")}
    assert "the inputs are the calls the simulator made" in within["assumptions"]
    assert {"decideRefund": 3} == result["calls"]
    assert "seed-1" == result["seed"] == within["seed"]


def test_a_recorded_call_breaking_the_claim_is_refuted_naming_that_call(project, toolchain):
    calls = [_call("initials", ["ann"], "a"), _call("initials", [LONGER], "m", run=2, invocation="req-2#1")]
    short = _by_property(run_scenario_specs(project, [project / "domain.ts"], calls, "seed-1",
                                            toolchain=toolchain))["shortNames"]
    assert ("refuted", "checked") == (short["kind"], short["rung"])
    assert {"args": [LONGER], "result": "m", "firstSeen": {"run": 2, "invocation": "req-2#1", "ordinal": 1}} == \
        short["counterexample"]["call"]
    assert "false" == short["counterexample"]["outcome"]["kind"]


def test_checked_stands_with_why_when_sampling_gives_up(project, toolchain):
    calls = [_call("initials", [LONG], "n")]
    long_names = _by_property(run_scenario_specs(project, [project / "domain.ts"], calls, "seed-1",
                                                 toolchain=toolchain))["longNames"]
    assert ("checked", "checked", 1) == (long_names["kind"], long_names["rung"], long_names["counts"]["checked"])
    assert "held on 1 distinct recorded calls" in long_names["detail"]
    assert "not TESTED: no input inside the claim" in long_names["detail"]


def test_no_recorded_call_is_gave_up_at_checked_and_total_is_unsupported(project, toolchain):
    result = run_scenario_specs(project, [project / "domain.ts", project / "shell.ts"], [], "seed-1",
                                toolchain=toolchain)
    props = _by_property(result)
    long_names = props["longNames"]
    # Neither rung decided: one UNKNOWN naming both reasons.
    assert ("unknown", ["gave_up"]) == (long_names["kind"], long_names["reasons"])
    assert "checked: the simulator made no call to the function" in long_names["detail"]
    assert "tested:" in long_names["detail"]
    # TESTED alone still decides a claim the simulator never exercised; CHECKED's look is kept beside it.
    assert ("tested", "unknown", 0) == (props["withinTotal"]["kind"], props["withinTotal"]["checked"]["kind"],
                                         props["withinTotal"]["checked"]["calls"])
    assert ("unknown", ["unsupported"]) == (props["terminates"]["kind"], props["terminates"]["reasons"])
    shell = result["modules"][1]
    assert (None, "shell.ts", []) == (shell["spec"], shell["module"], shell["properties"])
    assert "no spec file shell.props.ts" in shell["detail"]
    assert {} == result["calls"]


def test_the_same_calls_and_seed_give_the_same_verdicts(project, toolchain):
    from eutaxy.core.canonical import to_json

    one = run_scenario_specs(project, [project / "domain.ts"], REFUNDS, "seed-2", toolchain=toolchain)
    two = run_scenario_specs(project, [project / "domain.ts"], REFUNDS, "seed-2", toolchain=toolchain)
    assert to_json(one) == to_json(two)
    assert "domain.ts" == one["modules"][0]["module"] and "domain.props.ts" == one["modules"][0]["spec"]


EXACT_DOMAIN = """\
export function half(x: number): number {
  return x / 2;
}

export function next(n: bigint): bigint {
  return n + 1n;
}
"""

EXACT_PROPS = """\
import { forall } from "eutaxy/spec";
import { half, next } from "./exact.ts";

// False only at -0 (1 / -0 is -Infinity).
export const halfOfNonNegative = forall(half, {
  when: (x) => x >= 0,
  ensures: (x) => 1 / half(x) > 0,
});

export const nextGrows = forall(next, {
  ensures: (n) => next(n) > n,
});
"""

MINUS_ZERO = {"$": "number", "v": "-0"}


def _exact_call(function, args, result, args_exact, result_exact, **where):
    return dict(_call(function, args, result, **where), argsExact=args_exact, resultExact=result_exact)


def test_exact_readings_reach_checked_as_themselves(tmp_path, toolchain):
    """The runtime's argsExact/resultExact: -0 refutes at CHECKED, a bigint call is an assignment, not unusable."""
    (tmp_path / "exact.ts").write_text(EXACT_DOMAIN)
    (tmp_path / "exact.props.ts").write_text(EXACT_PROPS)
    calls = [
        _call("half", [4], 2),
        # JSON's reading of half(-0) is half(0) = 0; the exact one is -0.
        _exact_call("half", [0], 0, [MINUS_ZERO], MINUS_ZERO, run=2, invocation="msg-3#1", ordinal=1),
        # JSON's reading of next(5n) is the string "5".
        _exact_call("next", "5", "6", [{"$": "bigint", "v": "5"}], {"$": "bigint", "v": "6"}),
        # A call whose arguments the encoding cannot carry: counted, not guessed.
        dict(_call("next", ["1970-01-01T00:00:00.000Z"], 1), argsInexact="args[0] is a Date"),
    ]
    assert [[4], [MINUS_ZERO]] == [c["args"] for c in calls_by_function(calls)["half"]]
    result = run_scenario_specs(tmp_path, [tmp_path / "exact.ts"], calls, "seed-1", toolchain=toolchain)
    assert {"half": 2, "next": 1} == result["calls"]
    assert {"next": 1} == result["unusableCalls"]
    props = _by_property(result)
    half = props["halfOfNonNegative"]
    assert ("refuted", "checked") == (half["kind"], half["rung"])
    assert {"args": [MINUS_ZERO], "result": MINUS_ZERO,
            "firstSeen": {"run": 2, "invocation": "msg-3#1", "ordinal": 1}} == half["counterexample"]["call"]
    grows = props["nextGrows"]
    assert "tested" == grows["kind"] and 1 == grows["counts"]["checked"]
