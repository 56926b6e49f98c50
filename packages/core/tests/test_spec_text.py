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
