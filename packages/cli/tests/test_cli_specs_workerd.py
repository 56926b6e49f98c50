"""End to end: ``eutaxy check`` on a real Worker in workerd, with the spec ladder on its core's calls.

``specs_e2e/`` is a refund Worker whose core (``domain.ts``) has a spec file beside it. The
Cloudflare runtime records every call the Worker makes into ``domain.ts`` as a Core
decision; the check lists them as ``coreCalls`` and runs CHECKED then TESTED on them. The
second request's 45-character reference refutes ``shortReferences`` at CHECKED (no drawn
string is that long), ``fortyStaysForty`` stands at CHECKED because sampling never meets
its precondition, and the simulation verdict stays BOUNDED with exit 0. The pinned Node
toolchain is required: this test fails rather than skips without it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture
def scenario_path(copy_example) -> Path:
    return copy_example("specs_e2e") / "refunds.sim.py"


def test_the_ladder_runs_on_the_calls_the_worker_made(scenario_path, run_cli):
    result = run_cli("check", str(scenario_path), "--max-runs", "12", "--budget-ms", "120000", "--json")
    assert 1 == result.code, result.stderr  # BOUNDED, but shortReferences is refuted at CHECKED
    data = json.loads(result.stdout)
    assert "bounded" == data["kind"]
    calls = data["coreCalls"]
    assert [
        ("decideRefund", [{"totalCents": 1500, "refundedCents": 0}, 600], "req-1#1"),
        ("decideRefund", [{"totalCents": 900, "refundedCents": 0}, 400], "req-2#1"),
        ("reference", ["\u2277" + "r" * 39], "req-1#1"),
        ("reference", ["s" * 45], "req-2#1"),
    ] == [(c["function"], c["args"], c["firstSeen"]["invocation"]) for c in calls]
    # The read is effect #0 of each request; both decisions come before its write, #1.
    assert {1} == {c["firstSeen"]["ordinal"] for c in calls}
    assert {"ok": True, "refunded": 600} == calls[0]["result"]

    props = {p["property"]: p for m in data["specs"]["modules"] for p in m["properties"]}
    assert "tested" == props["withinTotal"]["kind"]
    assert "also held on 2 of the simulator's inputs" in props["withinTotal"]["detail"]
    short = props["shortReferences"]
    assert ("refuted", "checked") == (short["kind"], short["rung"])
    assert {"args": ["s" * 45], "result": "s" * 45, "firstSeen": calls[3]["firstSeen"]} == short["counterexample"]["call"]
    forty = props["fortyStaysForty"]
    assert ("checked", {"checked": 1, "tested": 0}) == (forty["kind"], forty["counts"])
    assert "not TESTED" in forty["detail"]
    assert ("unknown", ["unsupported"]) == (props["terminates"]["kind"], props["terminates"]["reasons"])
    assert "refunds" == data["specs"]["seed"] == data["provenance"]["seed"]


def test_the_text_report_tells_the_specs_after_the_verdict(scenario_path, run_cli):
    result = run_cli("check", str(scenario_path), "--max-runs", "12", "--budget-ms", "120000")
    assert 1 == result.code, result.stderr  # BOUNDED, but shortReferences is refuted at CHECKED
    text = result.stdout
    assert text.startswith("BOUNDED  specs-e2e (cloudflare)")
    section = text[text.index("\nSpecs ("):]
    assert "CHECKED on the 4 distinct core calls this check recorded, then TESTED with seed refunds" in section
    assert "REFUTED  shortReferences  at CHECKED: reference(" in section
    assert "a call the simulator made (first in run 0, req-2#1 before effect #1" in section
    assert [] == [p.name for p in scenario_path.parent.iterdir() if p.name.endswith("_regression_test.py")]


MINUS_ZERO = {"$": "number", "v": "-0"}

ZERO_SIGN = """

// False only when the recorded order's refunded total is -0, which JSON writes as 0.
export const refundedIsNotMinusZero = forall(decideRefund, {
  ensures: (order, amount) => 1 / order.refundedCents !== -Infinity,
});
"""


def test_a_call_json_cannot_carry_reaches_checked_exactly(scenario_path, run_cli):
    """The Worker passes -0 into its core: the log's canonical args say 0, and CHECKED sees -0 (argsExact)."""
    folder = scenario_path.parent
    worker = folder / "worker.ts"
    worker.write_text(worker.read_text().replace("refundedCents: order.refunded_cents }", "refundedCents: -order.refunded_cents }"))
    props = folder / "domain.props.ts"
    props.write_text(props.read_text() + ZERO_SIGN)
    result = run_cli("check", str(scenario_path), "--max-runs", "3", "--budget-ms", "120000", "--json")
    assert 1 == result.code, result.stderr  # BOUNDED, but refundedIsNotMinusZero is refuted at CHECKED
    data = json.loads(result.stdout)
    assert "bounded" == data["kind"]
    first = next(c for c in data["coreCalls"] if c["function"] == "decideRefund")
    assert [{"totalCents": 1500, "refundedCents": 0}, 600] == first["args"]
    assert [{"totalCents": 1500, "refundedCents": MINUS_ZERO}, 600] == first["argsExact"]
    assert "unusableCalls" not in data["specs"]
    found = {p["property"]: p for m in data["specs"]["modules"] for p in m["properties"]}
    zero = found["refundedIsNotMinusZero"]
    # JSON's reading (0) would have held at CHECKED and left the refutation to TESTED's -0 edge.
    assert ("refuted", "checked") == (zero["kind"], zero["rung"])
    assert [{"totalCents": 1500, "refundedCents": MINUS_ZERO}, 600] == zero["counterexample"]["call"]["args"]
    assert first["firstSeen"] == zero["counterexample"]["call"]["firstSeen"]
