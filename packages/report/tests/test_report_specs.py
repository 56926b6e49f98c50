"""The Specs section: spec verdicts told after the simulation verdict, apart from it."""

from __future__ import annotations

import report_verdicts as verdicts

from eutaxy.report.text import render_text

CALLS = [
    {"function": "decideRefund", "args": [{"totalCents": 1000, "refundedCents": 0}, 600],
     "result": {"ok": True, "refunded": 600}, "firstSeen": {"run": 0, "invocation": "req-1#1", "ordinal": 1}},
    {"function": "initials", "args": ["m" * 45], "result": "m",
     "firstSeen": {"run": 2, "invocation": "req-2#1", "ordinal": 3}},
]

SPECS = {
    "seed": "refunds", "maxInside": 100, "calls": {"decideRefund": 1, "initials": 1},
    "summary": {"tested": 1, "refuted": 1, "checked": 1, "unknown": 1},
    "modules": [
        {"module": "domain.ts", "spec": "domain.props.ts", "diagnostics": [], "skipped": [], "properties": [
            {"kind": "tested", "property": "withinTotal", "rung": "tested", "function": "decideRefund",
             "counts": {"checked": 1, "tested": 100}, "assumptions": [], "seed": "refunds",
             "detail": "also held on 1 of the simulator's inputs",
             "checked": {"calls": 1, "evaluated": 1, "kind": "checked", "detail": "held on 1 distinct recorded calls"},
             "tested": {"evaluated": 120, "draws": 130, "edges": 40}},
            {"kind": "refuted", "property": "shortNames", "rung": "checked", "function": "initials",
             "counts": {"checked": 0}, "assumptions": [],
             "counterexample": {"call": {"args": ["m" * 45], "result": "m", "firstSeen": CALLS[1]["firstSeen"]},
                                "args": ["m" * 45], "outcome": {"kind": "false"}}},
            {"kind": "checked", "property": "longNames", "rung": "checked", "function": "initials",
             "counts": {"checked": 1, "tested": 0}, "assumptions": [],
             "detail": "held on 1 distinct recorded calls; not TESTED: no input inside the claim after 2007 draws"},
            {"kind": "unknown", "property": "terminates", "rung": None, "function": "decideRefund",
             "counts": {}, "assumptions": [], "reasons": ["unsupported"],
             "detail": "checked: total claims termination, which no recorded call shows"},
            {"kind": "refuted", "property": "noNaN", "rung": "tested", "function": "decideRefund",
             "counts": {"tested": 3}, "assumptions": [],
             "counterexample": {"args": [{"$": "number", "v": "NaN"}, {"$": "bigint", "v": "12"}],
                                "outcome": {"kind": "threw", "phase": "ensures", "name": "TypeError", "message": "boom"}}},
        ]},
        {"module": "shell.ts", "spec": None, "diagnostics": [], "skipped": [], "properties": [],
         "detail": "no spec file shell.props.ts beside the module, so nothing to check"},
    ],
}


def _specs_text(verdict: dict) -> list[str]:
    lines = render_text(verdict).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Specs"))
    return lines[start:]


def test_no_specs_no_section():
    """A verdict without specs renders as before (core calls alone add nothing)."""
    assert render_text(verdicts.bounded()) == render_text(dict(verdicts.bounded(), coreCalls=CALLS))
    assert "Specs" not in render_text(verdicts.bounded())


def test_the_section_comes_last_and_says_what_it_rests_on():
    text = render_text(dict(verdicts.bounded(), coreCalls=CALLS, specs=SPECS))
    assert text.startswith("BOUNDED")
    assert text.index("Provenance:") < text.index("Specs (")
    section = _specs_text(dict(verdicts.bounded(), coreCalls=CALLS, specs=SPECS))
    assert "Specs (CHECKED on the 2 distinct core calls this check recorded, then TESTED with seed refunds):" == section[0]
    assert any("do not change the verdict above" in line for line in section)


def test_each_property_has_one_line_with_its_word_and_why():
    section = [line.strip() for line in _specs_text(dict(verdicts.bounded(), coreCalls=CALLS, specs=SPECS))]
    assert "domain.ts  (spec domain.props.ts)" in section
    tested = next(line for line in section if line.startswith("TESTED"))
    assert "withinTotal" in tested and "held on 100 distinct drawn inputs" in tested
    assert "also held on 1 of the simulator's inputs" in tested
    refuted = next(line for line in section if line.startswith("REFUTED") and "shortNames" in line)
    assert "at CHECKED: initials(" in refuted and "claim false" in refuted
    assert "a call the simulator made (first in run 2, req-2#1 before effect #3" in refuted
    checked = next(line for line in section if line.startswith("CHECKED"))
    assert "longNames" in checked and "not TESTED: no input inside the claim" in checked
    unknown = next(line for line in section if line.startswith("UNKNOWN"))
    assert "unsupported: checked: total claims termination" in unknown
    drawn = next(line for line in section if "noNaN" in line)
    assert "at TESTED: decideRefund(NaN, 12n): ensures threw TypeError: boom" in drawn
    assert "simulator" not in drawn
    assert "no spec file shell.props.ts beside the module, so nothing to check" in section


def test_a_ladder_that_could_not_run_says_so():
    section = _specs_text(dict(verdicts.violated(), specs={"seed": "s", "modules": [],
                                                          "error": "the spec ladder could not run: no Node"}))
    assert "not checked: the spec ladder could not run: no Node" in [line.strip() for line in section]
    assert "0 distinct core calls" in section[0]


def test_calls_the_ladder_could_not_use_are_counted():
    specs = dict(SPECS, unusableCalls={"decideRefund": 2})
    section = [line.strip() for line in _specs_text(dict(verdicts.bounded(), coreCalls=CALLS, specs=specs))]
    assert "recorded calls whose arguments could not be recorded exactly, not checked: decideRefund 2" in section
