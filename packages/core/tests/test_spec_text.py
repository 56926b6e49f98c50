"""The one drawing of spec verdicts: a module's block, in the report's layout and in the check's.

Each test draws one module as the prover writes it and asserts the exact lines, so a
change to either command's text shows here; the two layouts differ only where a
SpecLayout field says they do.
"""

from eutaxy.core.spec_text import CHECK_LAYOUT, REPORT_LAYOUT, show_encoded, spec_module_lines

MODULE = {
    "module": "domain.ts",
    "spec": "domain.props.ts",
    "error": "the evaluator stopped\nsecond line",
    "diagnostics": [],
    "skipped": [{"name": "helper", "line": 9, "reason": "not built by forall or total"}],
    "properties": [
        {"property": "held", "kind": "tested", "function": "f", "counts": {"tested": 21, "checked": 2},
         "tested": {"draws": 40, "edges": 3, "target": 100}, "checked": {"kind": "checked"},
         "detail": "also held on 2 of the simulator's inputs"},
        {"property": "broken", "kind": "refuted", "rung": "checked", "function": "g",
         "counterexample": {"args": [{"a": 1}, {"$": "number", "v": "-0"}], "outcome": {"kind": "false"},
                            "call": {"result": {"$": "bigint", "v": "12"},
                                     "firstSeen": {"run": 0, "invocation": "req-1#1", "ordinal": 2}}}},
        {"property": "total", "kind": "unknown", "reasons": ["unsupported"], "detail": ""},
    ],
}


def test_the_report_layout_prints_messages_whole_and_shortfalls_in_the_word():
    """eutaxy report: at the margin, the error whole, the skipped line number, TESTED (21 of 100), edges."""
    assert [
        "domain.ts  (spec domain.props.ts)",
        "  error: the evaluator stopped",
        "         second line",
        "  skipped helper (line 9): not built by forall or total",
        "  TESTED (21 of 100) held    held on 21 distinct inputs (40 draws, 3 edges); also held on 2 of the simulator's inputs",
        "  REFUTED            broken  at CHECKED: g({ a: 1 }, -0): claim false -- a call the simulator made "
        "(first in run 0, req-1#1 before effect #2; it returned 12n)",
        "  UNKNOWN            total   unsupported",
    ] == spec_module_lines(MODULE, REPORT_LAYOUT)


def test_the_check_layout_is_indented_one_line_per_message_and_says_what_checked_saw():
    """eutaxy check: indented under its section, the error's first line, drawn inputs, values cut by the caller."""
    assert [
        "  domain.ts  (spec domain.props.ts)",
        "    error: the evaluator stopped",
        "    skipped helper: not built by forall or total",
        "    TESTED   held    held on 21 distinct drawn inputs (40 draws); also held on 2 of the simulator's inputs",
        "    REFUTED  broken  at CHECKED: g(<{ a: 1 }, -0>): claim false -- a call the simulator made "
        "(first in run 0, req-1#1 before effect #2; it returned <12n>)",
        "    UNKNOWN  total   unsupported",
    ] == spec_module_lines(MODULE, CHECK_LAYOUT, cut=lambda text: f"<{text}>")


def test_encoded_values_are_written_as_javascript_source():
    """show_encoded decodes first: tags become 12n, -0, undefined; a record wrapped for its $ key is the record."""
    assert "[12n, -0, undefined, NaN]" == show_encoded(
        [{"$": "bigint", "v": "12"}, {"$": "number", "v": "-0"}, {"$": "undefined"}, {"$": "number", "v": "NaN"}])
    assert '{ $: "x" }' == show_encoded({"$": "object", "v": {"$": "x"}})


ENGINES_MODULE = {
    "module": "domain.ts", "spec": "domain.props.ts",
    "properties": [
        {"property": "p", "kind": "proven", "function": "f", "counts": {"tested": 100}, "engine": {"name": "smt", "version": "5.4.1"},
         "engines": [{"kind": "proven", "engine": {"name": "smt", "version": "5.4.1"}, "assumptions": ["a", "b"]}]},
        {"property": "r", "kind": "refuted", "rung": "proven", "function": "g",
         "counterexample": {"args": [0.5], "outcome": {"kind": "false"}},
         "engines": [{"kind": "refuted", "engine": {"name": "smt", "version": "5.4.1"},
                      "counterexample": {"args": [0.5], "outcome": {"kind": "false"}}}]},
        {"property": "u", "kind": "tested", "function": "h", "counts": {"tested": 100}, "tested": {"draws": 120, "edges": 9},
         "engines": [
             {"kind": "unknown", "reasons": ["gave_up"], "engine": {"name": "smt", "version": "5.4.1"},
              "detail": "Z3's step limit ran out (rlimit 4000000)"},
             {"kind": "unknown", "reasons": ["unsupported"], "engine": {"name": "smt", "version": "5.4.1"},
              "detail": "outside the subset", "unsupported": {"construct": "WhileStatement", "file": "module",
                                                              "function": "h", "line": 3}},
             {"kind": "unknown", "reasons": ["unavailable"], "engine": {"name": "lean", "version": ""},
              "detail": "Lean is not installed; run `eutaxy prover install lean`"}]},
    ],
}


def test_the_report_layout_gives_every_engines_answer_under_its_property():
    """eutaxy report: PROVEN with its assumptions, REFUTED with the replayed model, UNKNOWN with its reason,
    the construct, file and line, or the install command; the check's layout leaves them to its JSON."""
    assert [
        "domain.ts  (spec domain.props.ts)",
        "  PROVEN   p  by smt 5.4.1; held on 100 TESTED inputs",
        "      smt 5.4.1: PROVEN, assuming: a; b",
        "  REFUTED  r  at PROVEN: g(0.5): claim false",
        "      smt 5.4.1: REFUTED, its model replayed on the real function: g(0.5): claim false",
        "  TESTED   u  held on 100 distinct inputs (120 draws, 9 edges)",
        "      smt 5.4.1: UNKNOWN gave_up: Z3's step limit ran out (rlimit 4000000)",
        "      smt 5.4.1: UNKNOWN unsupported [WhileStatement, module (h) line 3]: outside the subset",
        "      lean: UNKNOWN unavailable: Lean is not installed; run `eutaxy prover install lean`",
    ] == spec_module_lines(ENGINES_MODULE, REPORT_LAYOUT)
    assert not any("smt 5.4.1:" in line for line in spec_module_lines(ENGINES_MODULE, CHECK_LAYOUT))
