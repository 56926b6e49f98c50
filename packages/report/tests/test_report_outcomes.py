"""Outcome counts and uncaught errors in the reports: text, JSON and HTML say how invocations ended."""

from __future__ import annotations

import json

import report_verdicts as verdicts

from eutaxy.core.canonical import to_json
from eutaxy.core.verdict_data import verdict_data, verdict_from_data
from eutaxy.report.html import render_html
from eutaxy.report.text import render_text

#: msg-1#2 threw after its first point; msg-9#1 threw before opening any point shown.
_INVOCATIONS = [
    {"invocation": "msg-1#1", "drive": "queue", "outcome": "crashed", "ordinal": 0},
    {"invocation": "msg-1#2", "drive": "queue", "outcome": "threw", "ordinal": 0,
     "error": {"name": "TypeError", "message": "amount is undefined", "at": "src/index.ts:12"}},
    {"invocation": "msg-9#1", "drive": "queue", "outcome": "threw",
     "error": {"name": "Error", "message": "no config"}},
]

_OUTCOMES = [{
    "drive": "queue", "returned": 7, "threw": 3, "crashed": 2, "timedOut": 0, "retriedAll": 1, "deadLettered": 1,
    "succeededFaultFree": True, "faultFreeInvocations": 4,
    "firstError": {"invocation": "msg-1#2", "run": 2, "error": {"name": "TypeError", "message": "amount is undefined", "at": "src/index.ts:12"}},
}]


def _violated():
    verdict = verdicts.violated()
    verdict["invocations"] = [dict(one) for one in _INVOCATIONS]
    verdict["outcomes"] = [dict(one) for one in _OUTCOMES]
    return verdict


def test_the_uncaught_error_shows_in_the_trace_under_the_point_it_followed():
    """A threw invocation's error is the line after its last point; one with no point shown comes after the trace."""
    lines = render_text(_violated()).splitlines()
    at = next(i for i, line in enumerate(lines) if "!! threw TypeError: amount is undefined (at src/index.ts:12)" in line)
    assert lines[at - 1].startswith("  msg-1#2 (redelivery)  #0 D1:DB run")
    assert lines[at + 1].strip().startswith("#1 Queue:payments ack")
    assert any(line.split() == ["msg-9#1", "!!", "threw", "Error:", "no", "config"] for line in lines)
    # A crash is a fault the trace already marks: no failure line for it.
    assert 2 == sum("!! threw" in line for line in lines)


def test_every_verdict_counts_how_its_invocations_ended():
    """The Invocations section: counts per drive and the first error with where it was thrown."""
    verdict = verdicts.bounded()
    verdict["outcomes"] = [dict(one) for one in _OUTCOMES]
    text = render_text(verdict)
    assert "  queue  7 returned (1 asking for every message again), 3 threw, 2 crashed by a fault, 1 message dead-lettered" in text
    assert "first error (msg-1#2, run 3): TypeError: amount is undefined (at src/index.ts:12)" in text
    # A BOUNDED over a handler that threw says so up front, beside the verdict.
    assert ("The handler's own code: 3 invocations threw an uncaught error in these runs (the first: TypeError: "
            "amount is undefined (at src/index.ts:12)); Invocations below counts them.") in text
    assert text.index("The handler's own code") < text.index("Invocations (how each")
    assert "The handler's own code" not in render_text(verdicts.bounded())


def test_outcomes_and_errors_survive_the_json_round_trip_and_reach_the_html_page():
    """The JSON report holds them as given; the HTML page draws the error beside its lane."""
    typed = verdict_from_data(_violated())
    again = verdict_data(typed)
    assert _INVOCATIONS == again["invocations"]
    assert _OUTCOMES == again["outcomes"]
    assert json.loads(to_json(again)) == again
    page = render_html(_violated())
    assert "!! threw TypeError: amount is undefined (at src/index.ts:12)" in page


def test_a_call_the_users_own_code_crashed_is_shown_as_a_failure_not_a_fault():
    """Out of memory (or the user's own exit) crashes an invocation with an error: the trace and the
    page say how it ended, and a BOUNDED counts it up front; an injected crash stays the fault's."""
    verdict = _violated()
    verdict["invocations"][0] = {
        "invocation": "msg-1#1", "drive": "queue", "outcome": "crashed", "ordinal": 0,
        "error": {"name": "MemoryError", "message": "out_of_memory: the invocation ran out of memory", "at": "handler.py:14"},
    }
    lines = render_text(verdict).splitlines()
    assert any(line.strip() == "!! crashed MemoryError: out_of_memory: the invocation ran out of memory (at handler.py:14)"
               for line in lines), "\n".join(lines)
    assert "!! crashed MemoryError: out_of_memory" in render_html(verdict)
    bounded = verdicts.bounded()
    bounded["outcomes"] = [{**_OUTCOMES[0], "threw": 0, "exited": 2, "firstError": {
        "invocation": "msg-1#1", "run": 0, "error": verdict["invocations"][0]["error"]}}]
    text = render_text(bounded)
    assert ("The handler's own code: 2 invocations crashed by their own code (an exit, out of memory) in these runs "
            "(the first: MemoryError: out_of_memory: the invocation ran out of memory (at handler.py:14))") in text
