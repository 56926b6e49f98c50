"""The text report tells the verdict as a story: word first, then why, then the evidence."""

from __future__ import annotations

import report_verdicts as verdicts

from eutaxy.core.verdicts import CAUSES, UNLISTED_CAUSE_EXPLANATION
from eutaxy.report.text import render_text, summarize_value


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


def test_violated_report_starts_with_the_verdict_word_and_names_the_invariant():
    """The first word is VIOLATED; the invariant and its message follow."""
    text = render_text(verdicts.violated())
    assert text.startswith("VIOLATED")
    assert "queue-duplicate-write (cloudflare)" in text.splitlines()[0]
    assert "Invariant broken: one-payment-per-order (at_most_once_per_key)" in text
    assert 'key "o-1" was written 2 times (at most once allowed)' in text
    assert 'keys: "o-1"' in text


def test_violated_trace_is_one_line_per_effect_point_with_faults_marked():
    """Each effect point's call and result share a line; an injected fault is marked !!."""
    lines = _lines(render_text(verdicts.violated()))
    first = next(line for line in lines if line.startswith("msg-1#1 "))
    assert "#0 D1:DB run" in first
    assert 'INSERT INTO payments (order_id, amount_cents) VALUES (?, ?) ["o-1",1200]' in first
    assert "-> changes 1" in first
    after_first = lines[lines.index(first) + 1]
    assert after_first.startswith("!! crash_after")
    redelivered = next(line for line in lines if line.startswith("msg-1#2"))
    assert "redelivery" in redelivered and "-> changes 1" in redelivered
    assert any("!! redelivery" in line for line in lines)


def test_each_point_the_users_code_made_shows_its_line_in_a_column_of_its_own():
    """The source's file and line stand between the label and the point, aligned; the
    platform's own points leave the column blank, and a fault under a point stays under it."""
    verdict = verdicts.aws_violated()
    for effect in verdict["trace"]:
        if effect["target"].startswith("DynamoDB:") and effect["kind"] != "snapshot":
            effect["source"] = {"file": "handler.py", "line": 20, "column": 9}
    lines = render_text(verdict).splitlines()
    trace = lines[lines.index(next(line for line in lines if line.startswith("Shrunk trace"))) + 1:]
    put = next(line for line in trace if "DynamoDB:ledger PutItem" in line)
    delete = next(line for line in trace if "SQS:payments delete" in line)
    assert "  handler.py:20  #0 DynamoDB:ledger PutItem" in put
    column = put.index("#0 DynamoDB")
    assert delete.index("#1 SQS:payments") == column and "handler.py" not in delete
    assert trace[trace.index(delete) + 1].index("!! crash_before") == column + len("#1 ")
    # Without a source anywhere the trace has no column: reports of older verdicts read as they did.
    assert "  msg-1#1 (at +0 s)               #0 DynamoDB:ledger PutItem" in render_text(verdicts.aws_violated())


def test_violated_trace_marks_the_effects_the_violation_names():
    """Effects listed in violation.effects carry a marker with a legend."""
    text = render_text(verdicts.violated())
    marked = [line for line in text.splitlines() if line.endswith(" *")]
    assert 2 == len(marked)
    assert "(* an effect the violation names)" in text


def test_violated_report_shows_schedule_seed_runs_bounds_and_assumptions():
    """The reader can reproduce the run and sees what was explored."""
    text = render_text(verdicts.violated())
    assert "msg-1#1 effect #0: crash_after" in text
    assert "seed: queue-duplicate-write" in text
    assert "runs 17, distinct schedules 12, faults injected 9, schedule points 4" in text
    assert "bounds reached: maxFaultsPerRun, maxRedeliveries" in text
    assert "events kept: msg-1" in text
    # The assumptions are counted on one line by default, printed with verbose.
    assert "- code between effects shares no state except through effects" not in text
    assert "  assumptions: 2 (where the model departs from the platform; --verbose prints them, the JSON report has them)" in text
    verbose = render_text(verdicts.violated(), verbose=True)
    assert "    - code between effects shares no state except through effects" in verbose
    assert "assumptions: 2" not in verbose


def test_violated_report_shows_the_end_state_as_rows():
    """Snapshots are shown after the trace, not as effects."""
    text = render_text(verdicts.violated())
    assert "D1:DB payments: 2 rows" in text
    assert '{"amount_cents":1200,"id":1,"order_id":"o-1"}' in text
    assert "snapshot" not in [line.split()[0] for line in text.splitlines() if line.strip()]


def test_bounded_report_says_bounded_not_verified():
    """BOUNDED is never called verified, and says what was explored."""
    text = render_text(verdicts.bounded())
    assert text.startswith("BOUNDED")
    assert "bounded, not verified" in text
    assert "No invariant broke in 200 runs within the bounds below." in text
    assert "not a proof" in text
    assert "verified" not in text.replace("not verified", "")


def test_bounded_exhaustive_report_states_completion_schedules_and_reduction():
    """Exhaustive info appears whenever it is in the verdict."""
    text = render_text(verdicts.bounded(exhaustive={"completed": True, "schedules": 12, "reduction": True}))
    assert "Exhaustive: enumeration completed, 12 schedules ran, partial-order reduction stayed on." in text
    assert "every schedule within the bounds below ran" in text
    stopped = render_text(verdicts.bounded(exhaustive={"completed": False, "schedules": 3, "reduction": False}))
    assert "enumeration did not complete" in stopped
    assert "partial-order reduction was turned off" in stopped
    assert "every schedule within the bounds" not in stopped


def test_unsupported_report_gives_the_cause():
    """UNSUPPORTED names its cause and claims nothing about the scenario."""
    text = render_text(verdicts.unsupported())
    assert text.startswith("UNSUPPORTED")
    assert "Cause: binding_not_allowed: KV binding CACHE was touched" in text
    assert "no" in text and "claim" in text


def test_each_unsupported_cause_says_why_in_its_own_words():
    """The line under the cause is the registry's explanation of that cause, never one generic sentence."""
    seen = set()
    for kind in ("binding_not_allowed", "vacuous_invariant", "module_state_leak"):
        verdict = verdicts.unsupported()
        verdict["cause"] = {"kind": kind, "detail": "what happened"}
        lines = render_text(verdict).splitlines()
        explanation = lines[lines.index(f"Cause: {kind}: what happened") + 1]
        assert CAUSES[kind]["explanation"] == explanation
        seen.add(explanation)
    assert 3 == len(seen)
    assert "cannot control" not in "\n".join(seen)


def test_a_cause_the_registry_does_not_list_gets_the_general_sentence():
    """A verdict from a newer Eutaxy, with a cause this report does not know, still says why in general terms."""
    verdict = verdicts.unsupported()
    verdict["cause"] = {"kind": "from_the_future", "detail": "d"}
    assert UNLISTED_CAUSE_EXPLANATION in render_text(verdict)


def test_report_survives_missing_and_unknown_fields():
    """A verdict with only a kind, or a kind newer than the report, still renders."""
    assert render_text({"kind": "violated"}).startswith("VIOLATED")
    assert render_text({"kind": "bounded"}).startswith("BOUNDED")
    newer = render_text({"kind": "flaky", "scenario": "s"})
    assert newer.startswith("FLAKY")
    assert '"kind":"flaky"' in newer
    assert "required field missing @ $.provenance" in render_text({"kind": "bounded"})


def test_decision_effects_and_crash_before_render():
    """A Core decision shows its result; crash_before shows no result, only the fault."""
    verdict = verdicts.violated()
    verdict["trace"] = [
        {"target": "Core:decideRefund", "op": "decideRefund", "kind": "decision",
         "payload": {"args": [{"amount": 5}], "result": "refund"}, "invocation": "req-1#1", "ordinal": 0, "time": 0},
        {"target": "D1:DB", "op": "run", "kind": "call", "payload": {"args": {"sql": "UPDATE x", "params": []}},
         "invocation": "req-1#1", "ordinal": 0, "time": 0},
        {"target": "D1:DB", "op": "run", "kind": "fault",
         "payload": {"args": {"sql": "UPDATE x", "params": []}, "fault": "crash_before"},
         "invocation": "req-1#1", "ordinal": 0, "time": 0},
    ]
    verdict["violation"]["effects"] = []
    lines = _lines(render_text(verdict))
    decision = next(line for line in lines if "Core:decideRefund" in line)
    assert "decision" in decision and "-> refund" in decision
    # The decision carries the ordinal of the point after it: it is drawn without one.
    assert "#0" not in decision
    update = next(line for line in lines if "UPDATE x" in line)
    assert "#0 D1:DB run" in update and "->" not in update
    assert lines[lines.index(update) + 1] == (
        "!! crash_before (crashed before the effect: it did not happen, and the invocation had done nothing before it)")


def test_a_crash_before_names_what_its_invocation_did_before_it_and_an_outer_call_ends_once():
    """crash_before at a response after a committed insert says the insert stands; an alarm whose
    result comes after its nested points closes as ``end of #0``, not as a second #0."""
    verdict = verdicts.violated()

    def record(kind, target, op, ordinal, **payload):
        return {"target": target, "op": op, "kind": kind, "payload": payload, "invocation": "DO:B/o-1/alarm.1#1",
                "ordinal": ordinal, "time": 0}

    verdict["trace"] = [
        record("call", "DO:B", "alarm", 0, args={"object": "o-1"}),
        record("call", "D1:DB", "run", 1, args={"sql": "INSERT x", "params": []}),
        record("result", "D1:DB", "run", 1, args={"sql": "INSERT x", "params": []}, result={"changes": 1}),
        record("call", "Http:/x", "response", 2, args={"path": "/x"}),
        record("fault", "Http:/x", "response", 2, args={"path": "/x"}, fault="crash_before"),
        record("result", "DO:B", "alarm", 0, args={"object": "o-1"}, result={}),
    ]
    verdict["violation"]["effects"] = []
    lines = _lines(render_text(verdict))
    response = next(line for line in lines if "Http:/x response" in line)
    assert lines[lines.index(response) + 1] == (
        "!! crash_before (crashed before the effect: it did not happen; what the invocation did before it stands: "
        "#1 D1:DB run)")
    assert 1 == sum(line.endswith("#0 DO:B alarm  o-1") for line in lines)
    assert "end of #0 DO:B alarm  -> done" in lines


def test_frames_the_platform_recorded_outside_any_point_carry_no_ordinal():
    """WebSocket frames a connection received are records of the platform, all at ordinal 0: none shows #0."""
    verdict = verdicts.violated()
    verdict["trace"] = [
        {"target": "WebSocket:ada", "op": "message", "kind": "platform", "payload": {"args": {"data": text}},
         "invocation": "websocket", "ordinal": 0, "time": 0}
        for text in ("one", "two")
    ]
    verdict["violation"]["effects"] = []
    frames = [line for line in _lines(render_text(verdict)) if "WebSocket:ada message" in line]
    assert ["websocket  WebSocket:ada message  one", "WebSocket:ada message  two"] == frames


def test_long_values_are_cut_to_one_line():
    """A huge argument is shortened in text (the JSON report keeps it whole)."""
    text = summarize_value({"sql": "SELECT " + "x, " * 200 + "y"})
    # Cut in the middle, the start and the end kept, the one cut marked once.
    assert len(text) <= 160 and text.startswith("SELECT x, ") and text.endswith("x, y")
    assert 1 == text.count("…") and "..." not in text
    assert "\n" not in summarize_value("a\n  b")


def test_a_cut_is_marked_only_where_characters_were_left_out():
    """A value's own "..." is no cut; a key near the start of a long value needs no second mark."""
    from eutaxy.report.text import middle_cut

    assert "wait..." == summarize_value("wait...")
    assert "abcdefghij" == middle_cut("abcdefghij", 10)
    cut = middle_cut("abcdefghijklmnopqrstuvwxyz", 10)
    assert 10 == len(cut) and cut.startswith("abcde") and cut.endswith("xyz") and 1 == cut.count("…")
    verdict = verdicts.violated()
    verdict["violation"]["keys"] = ['"powertools-idempotency"']
    verdict["trace"][0]["payload"]["args"]["params"] = ["x" * 30 + "powertools-idempotency" + "y" * 200]
    line = next(line for line in _lines(render_text(verdict)) if "#0 D1:DB run" in line)
    assert "powertool…s-idempotency" not in line and "x" * 30 + "powertools-idempotency" in line


def test_a_very_long_trace_is_cut_with_a_pointer_to_the_json():
    """More effect points than the cap are summarised in one closing line."""
    verdict = verdicts.violated()
    call = verdict["trace"][0]
    verdict["trace"] = [dict(call, ordinal=index) for index in range(250)]
    text = render_text(verdict)
    assert "... 50 more effect points (the JSON report has them all)" in text
    assert 200 == sum(1 for line in text.splitlines() if "D1:DB run" in line)


def test_counts_other_broken_invariants_and_shrinking_are_told():
    """What each invariant saw, the other invariants the run breaks, and the shrinker's replays."""
    verdict = verdicts.violated()
    verdict["invariants"] = [{"name": "one-payment-per-order", "kind": "at_most_once_per_key", "effects": 34, "rows": 0, "keys": 34}]
    other = {"invariant": "every-payment-recorded", "invariantKind": "at_least_once_per_message", "keys": [], "effects": [], "rows": [],
             "message": "every-payment-recorded: event msg-2 got no effect"}
    verdict["violations"] = [verdict["violation"], other]
    verdict["provenance"] = dict(verdict["provenance"], shrinkReplays=12, shrinkCapped=True, schedules=17)
    text = render_text(verdict)
    assert "one-payment-per-order  34 effects, 0 rows, 34 keys" in text
    assert "Also broken in this run:" in text and "every-payment-recorded (at_least_once_per_message)" in text
    assert "shrinking: 12 replays (stopped by its replay cap, or the check's grace past its budget, before a fixed point)" in text
    assert "distinct schedules 17" in text


def test_the_legend_appears_only_when_an_effect_is_starred():
    verdict = verdicts.violated()
    assert "(* an effect the violation names)" in render_text(verdict)
    verdict["violation"] = dict(verdict["violation"], effects=[len(verdict["trace"]) + 5])
    assert "(* an effect the violation names)" not in render_text(verdict)


def test_an_exhaustive_stop_says_why_it_stopped():
    verdict = verdicts.violated()
    verdict["exhaustive"] = {"completed": False, "schedules": 3, "reduction": True}
    assert "enumeration did not complete (stopped at the first violation)" in render_text(verdict)
    bounded = verdicts.bounded(exhaustive={"completed": False, "schedules": 9, "reduction": True})
    bounded["provenance"] = dict(bounded["provenance"], boundsReached=["maxRuns"])
    assert "enumeration did not complete (stopped by the run cap)" in render_text(bounded)


def test_a_budget_that_stopped_before_the_run_cap_is_said_and_completion_is_named():
    bounded = verdicts.bounded()
    bounded["provenance"] = dict(bounded["provenance"], boundsReached=["budgetMs"], bounds={"budgetMs": 2000, "maxRuns": 10000})
    assert "The budget of 2000 ms stopped exploration before the run cap of 10000" in render_text(bounded)
    bounded["provenance"] = dict(bounded["provenance"], boundsReached=[], completed=True)
    assert "completed: every schedule within the bounds below ran" in render_text(bounded)


def test_a_cut_value_keeps_the_key_in_view_and_wide_prints_it_whole():
    """A long body whose key sits past the cut shows the key; --wide shows everything."""
    verdict = verdicts.violated()
    body = {"note": "x" * 300, "orderId": "o-1"}
    call = dict(verdict["trace"][0], payload={"args": {"url": "https://pay.example/charges", "body": body}})
    verdict["trace"] = [call] + verdict["trace"][1:]
    line = next(line for line in render_text(verdict).splitlines() if "pay.example" in line)
    assert '"orderId":"o-1"' in line and len(line) < 300
    wide = next(line for line in render_text(verdict, wide=True).splitlines() if "pay.example" in line)
    assert "x" * 300 in wide


def test_coverage_is_a_compact_table_and_bounded_names_what_was_never_exercised():
    coverage = {
        "points": [
            {"target": "D1:DB", "op": "run", "ordinal": 0, "kinds": ["crash_before", "error"], "injected": ["error"]},
            {"target": "Queue:payments", "op": "ack", "ordinal": 1, "kinds": ["crash_before"], "injected": ["crash_before"]},
        ],
        "pairs": 3, "exercised": 2, "missed": [{"target": "D1:DB", "op": "run", "ordinal": 0, "fault": "crash_before"}],
    }
    text = render_text(verdicts.bounded(coverage=coverage, audit={"reran": 4, "runs": 4, "differences": 0}))
    assert "Fault coverage: 2 of 3 (point, kind) pairs exercised (66%)" in text
    assert "D1:DB run #0           crash_before- error+" in text
    assert "never exercised within the bounds: D1:DB run #0 crash_before" in text
    assert "Audit: reran 4 of 4 explored runs; every effect log repeated byte for byte." in text


def test_the_violating_trace_shows_the_aws_handler_output_on_its_invocation():
    """The handler's captured output is the invocation's last line, its text on one line."""
    lines = _lines(render_text(verdicts.aws_violated()))
    outputs = [line for line in lines if "Lambda:payments output" in line]
    assert 2 == len(outputs)
    assert all("handling o-1 WARNING:root:about to write o-1" in line for line in outputs)
    assert all(line.endswith("-> captured true") for line in outputs)
    first = next(index for index, line in enumerate(lines) if line.startswith("msg-1#1 "))
    redelivered = next(index for index, line in enumerate(lines) if line.startswith("msg-1#2"))
    assert first < lines.index(outputs[0]) < redelivered < lines.index(outputs[1])


def test_an_aws_trace_labels_each_invocation_with_when_it_started():
    """A redelivery after the visibility timeout shows its 30 virtual seconds; the first starts at +0 s."""
    lines = _lines(render_text(verdicts.aws_violated()))
    labels = [line.split("  ")[0] for line in lines if "#0 DynamoDB:ledger PutItem" in line and not line.startswith("!!")]
    assert ["msg-1#1 (at +0 s)", "msg-1#2 (redelivery, at +30 s)"] == labels
    verdict = verdicts.aws_violated()
    for effect in verdict["trace"][8:]:
        effect["time"] += 1500
    assert any(line.startswith("msg-1#2 (redelivery, at +31.500 s) ") for line in _lines(render_text(verdict)))


def test_a_cloudflare_trace_keeps_its_labels_without_times():
    """Only platforms whose delivery moves time on label invocations with times; Cloudflare's stay as they were."""
    text = render_text(verdicts.violated())
    assert " at +" not in text
    assert any(line.startswith("msg-1#2 (redelivery)  #0 D1:DB run") for line in _lines(text))


def test_a_cloudflare_redelivery_after_a_retry_delay_shows_when_it_started():
    """Where virtual time jumped before an invocation (retry({delaySeconds: 100})), its label shows its start."""
    verdict = verdicts.violated()
    first_redelivered = next(index for index, effect in enumerate(verdict["trace"]) if effect["invocation"] == "msg-1#2")
    for effect in verdict["trace"][first_redelivered:]:
        effect["time"] += 100_000
    lines = _lines(render_text(verdict))
    (label,) = [line.split("  ")[0] for line in lines if line.startswith("msg-1#2")]
    assert label.startswith("msg-1#2 (redelivery, at +100.")
    assert not any(line.startswith("msg-1#1 (") for line in lines)


def test_a_violation_about_time_labels_a_cloudflare_trace_with_times():
    """A min_interval_per_key violation is about the times of effects, so every invocation shows when it started."""
    verdict = verdicts.violated()
    verdict["violation"].update(
        invariantKind="min_interval_per_key",
        message='a-minute-apart: D1:DB run effects with key "o-1" came 2 ms apart, less than the 60000 ms required: '
        "msg-1#1 effect #0 and msg-1#2 effect #0",
    )
    lines = _lines(render_text(verdict))
    assert "Invariant broken: one-payment-per-order (min_interval_per_key)" in lines
    assert any(line.startswith("msg-1#2 (redelivery, at +0.002 s)  #0 D1:DB run") for line in lines), lines


def test_order_and_aggregate_violations_render_their_message_keys_and_rows():
    """The new kinds' violations render as every kind does: the message, the keys, the rows at fault."""
    verdict = verdicts.violated()
    verdict["violation"] = {
        "invariant": "one-charge-per-order",
        "invariantKind": "aggregate",
        "keys": ['"o-1"'],
        "effects": [8],
        "rows": [{"order_id": "o-1", "amount_cents": 1200, "id": 1}, {"order_id": "o-1", "amount_cents": 1200, "id": 2}],
        "message": 'one-charge-per-order: the count of id over D1:DB table payments for order_id "o-1" is 2, which breaks lte 1',
    }
    lines = _lines(render_text(verdict))
    assert "Invariant broken: one-charge-per-order (aggregate)" in lines
    assert 'one-charge-per-order: the count of id over D1:DB table payments for order_id "o-1" is 2, which breaks lte 1' in lines
    assert 'keys: "o-1"' in lines and '{"amount_cents":1200,"id":2,"order_id":"o-1"}' in lines
    assert " at +" not in render_text(verdict)


def test_what_the_fault_changed_puts_the_two_runs_side_by_side_after_the_last_shared_point():
    """The shared insert (with its crash) comes first, then each run's next points on one line each."""
    text = render_text(verdicts.violated_with_fault_free())
    lines = _lines(text)
    at = lines.index("What the fault changed (the same events replayed without it, turns as in the trace):")
    section = lines[at : lines.index("Schedule (what the regression test replays):")]
    assert "That run breaks no invariant." == section[1]
    assert "Both runs agree on the first effect point:" == section[2]
    assert section[3].startswith("msg-1#1  #0 D1:DB run")
    assert section[4].startswith("!! crash_after")
    assert "Then they part:" == section[5]
    assert ["with the fault", "without the fault"] == [cell.strip() for cell in section[6].split("|")]
    # Row by row: the redelivery beside the fault-free ack, then the rest of the faulty run.
    left, right = (cell.strip() for cell in section[7].split("|"))
    assert "msg-1#1 #1 Queue:payments !! redelivery" == left
    assert right.startswith("msg-1#1 #1 Queue:payments ack") and right.endswith("-> done")
    left, right = (cell.strip() for cell in section[8].split("|"))
    assert left.startswith("msg-1#2 (redelivery) #0 D1:DB run") and left.endswith("-> changes 1")
    assert "(run ended)" == right
    assert section[9].startswith("msg-1#2 (redelivery) #1 Queue:payments ack")
    assert "D1:DB payments: 2 rows in the trace, 1 row without the fault" in section
    assert 'only in the trace: {"amount_cents":1200,"id":2,"order_id":"o-1"}' in section


def test_the_side_by_side_columns_are_cut_to_width_and_wide_keeps_them_whole():
    """Each left cell is cut to COLUMN_CHARS, keeping its result; --wide prints the SQL whole."""
    from eutaxy.report.text import COLUMN_CHARS

    narrow = _lines(render_text(verdicts.violated_with_fault_free()))
    row = next(line for line in narrow if line.startswith("msg-1#2 (redelivery) #0"))
    left = row.split(" | ")[0].rstrip()
    assert len(left) <= COLUMN_CHARS
    # The key columns whole, the result kept, the arguments cut in their middle.
    assert left.startswith("msg-1#2 (redelivery) #0 D1:DB run INSERT") and left.endswith('",1200] -> changes 1')
    assert 1 == left.count("…")
    wide = _lines(render_text(verdicts.violated_with_fault_free(), wide=True))
    row = next(line for line in wide if line.startswith("msg-1#2 (redelivery) #0"))
    assert 'VALUES (?, ?) ["o-1",1200] -> changes 1' in row


def test_a_turn_only_violation_is_compared_with_arrival_order_and_a_plain_bug_says_so():
    """changed=turns names arrival order; changed=nothing says the bug shows in a plain run."""
    verdict = verdicts.violated_with_fault_free()
    verdict["faultFree"]["changed"] = "turns"
    text = render_text(verdict)
    assert "What the interleaving changed (the same events run with every turn in arrival order):" in text
    assert "in arrival order" in next(line for line in _lines(text) if line.startswith("in the trace"))
    verdict["faultFree"] = dict(verdict["faultFree"], changed="nothing", divergence=None, violations=[verdict["violation"]])
    text = render_text(verdict)
    assert "What the fault changed: nothing; the shrunk run injects no fault" in text
    assert "Then they part:" not in text


def test_a_verdict_without_fault_free_data_renders_as_before():
    """Older verdicts (no faultFree) get no such section; a broken one is named, field by field, not crashed on."""
    assert "What the fault changed" not in render_text(verdicts.violated())
    verdict = verdicts.violated()
    verdict["faultFree"] = {"changed": "faults", "divergence": {"agreedPoints": "x", "violating": [3], "faultFree": None}}
    text = render_text(verdict)
    assert text.startswith("VIOLATED  queue-duplicate-write")
    assert "This report could not read the verdict (" in text
    assert "@ $.faultFree.divergence.agreedPoints" in text
    assert "required field missing @ $.faultFree.schedule" in text


def _line(invocation, ordinal, level, text, time=0):
    return {"invocation": invocation, "ordinal": ordinal, "time": verdicts.START_MS + time, "level": level, "text": text}


def test_console_lines_sit_under_the_point_they_followed_and_the_rest_after_the_trace():
    """A line goes under the last record of its point, before its invocation's first point
    when it came before any, and after the trace when no point shown is its invocation's."""
    verdict = verdicts.violated()
    verdict["console"] = [
        _line("msg-1#1", None, "log", "handling o-1"),
        _line("msg-1#1", 0, "warn", "wrote o-1\nsecond line", 1),
        _line("msg-1#2", 1, "error", "acked", 4),
        _line(None, None, "capped", "3 more console lines were not kept (a run keeps 200)", 5),
    ]
    lines = render_text(verdict).splitlines()
    stripped = [line.strip() for line in lines]
    handling = stripped.index("console.log: handling o-1")
    assert stripped[handling - 1] == "msg-1#1" and stripped[handling + 1].startswith("#0 D1:DB run")
    wrote = stripped.index("console.warn: wrote o-1")
    assert stripped[wrote - 1].startswith("!! crash_after") and stripped[wrote + 1] == "second line"
    assert lines[wrote + 1].index("second") == lines[wrote].index("wrote")
    acked = stripped.index("console.error: acked")
    assert stripped[acked - 1].startswith("#1 Queue:payments ack")
    outside = stripped.index("Console output not under a point shown:")
    assert stripped[outside + 1] == "(console) 3 more console lines were not kept (a run keeps 200)"


def test_other_runs_console_output_is_counted_and_shown_with_logs():
    """Only the trace's lines are always printed; the comparison run's and the first run's need logs=True."""
    verdict = verdicts.violated_with_fault_free()
    verdict["faultFree"]["console"] = [_line("msg-1#1", 0, "info", "charged o-1", 1)]
    text = render_text(verdict)
    assert "Console output of the comparison run: 1 line (--logs shows them; the JSON report has them)." in text
    assert "charged o-1" not in text
    shown = render_text(verdict, logs=True)
    assert "Console output of the comparison run:\n  msg-1#1 after #0  console.info: charged o-1\n" in shown

    bounded = verdicts.bounded(firstRunConsole=[_line("msg-1#1", None, "error", "not configured: API_KEY")])
    assert "Console output of the first run: 1 line, 1 console.error among them (--logs shows them" in render_text(bounded)
    assert "  msg-1#1  console.error: not configured: API_KEY\n" in render_text(bounded, logs=True)
    assert "Console output" not in render_text(verdicts.bounded())
    noisy = verdicts.bounded(firstRunConsole=[
        _line("msg-1#1", None, "warn", "retrying"), _line("msg-1#1", 0, "error", "no key"),
        _line("msg-1#1", 0, "log", "done"), _line("msg-1#1", 1, "error", "no key again"),
    ])
    assert "first run: 4 lines, 2 console.error and 1 console.warn among them (--logs" in render_text(noisy)


def test_the_html_page_holds_every_run_console_output():
    """The HTML page embeds the text report with ``logs=True``: nothing the verdict holds is hidden there."""
    from eutaxy.report.html import render_html

    verdict = verdicts.bounded(firstRunConsole=[_line("msg-1#1", None, "error", "not configured: API_KEY")])
    assert "msg-1#1  console.error: not configured: API_KEY" in render_html(verdict)


def test_the_bounds_that_cut_runs_are_named_with_their_counts_and_what_they_left():
    """Each cut bound: how many runs it cut, how far they went of what the platform allows, and what was left undone."""
    bounded = verdicts.bounded(exhaustive={"completed": False, "schedules": 9, "reduction": True})
    bounded["provenance"] = dict(
        bounded["provenance"],
        runs=40,
        boundsReached=["maxRuns", "maxRedeliveries", "alarmsPerObject", "afterWorkTimerLimit"],
        cuts=[
            {"bound": "maxRedeliveries", "runs": 12, "cuts": 15, "limit": 2, "platformLimit": 3, "where": ["Queue:orders"], "left": ["msg-1", "msg-2"]},
            {"bound": "alarmsPerObject", "runs": 40, "cuts": 40, "limit": 3, "where": ["DO:ROOM/r1"], "left": ["alarm.4"]},
            {"bound": "afterWorkTimerLimit", "runs": 40, "cuts": 40, "limit": 100, "where": ["DO:ROOM/r1"], "left": ["after"]},
        ],
        undetermined=[{"invariant": "balance never negative", "runs": 5, "bounds": ["maxRedeliveries"]}],
    )
    text = render_text(bounded)
    assert "maxRedeliveries cut 12 of 40 runs: explored up to 2 redeliveries of 3 (Queue:orders; left undone: msg-1, msg-2)" in text
    assert "alarmsPerObject cut 40 of 40 runs: explored up to 3 alarms per object, the next left pending (DO:ROOM/r1; left undone: alarm.4)" in text
    assert (
        "afterWorkTimerLimit cut 40 of 40 runs: explored up to 100 timer firings of work after an object's answer,"
        " the rest left pending (DO:ROOM/r1; left undone: after)"
    ) in text
    assert "undetermined: invariant 'balance never negative' broke in 5 runs cut by maxRedeliveries; not a violation" in text
    # A bound that cut runs did not stop the exploration: the run cap did.
    assert "enumeration did not complete (stopped by the run cap)" in text


def test_a_violation_headline_names_the_invariant_and_key_in_a_short_line():
    """The line a test runner's summary shows: invariant, key, what went wrong, within 70 characters."""
    from eutaxy.report.text import HEADLINE_CHARS_MAX, violation_headline

    twice = {"invariant": "payment-recorded-once", "invariantKind": "at_most_once_per_key", "keys": ['"o-2"'],
             "effects": [1, 4], "rows": [], "message": "payment-recorded-once: two D1:DB run effects share key"}
    assert violation_headline(twice) == 'payment-recorded-once: "o-2" twice'
    assert violation_headline({**twice, "effects": [1, 4, 6]}) == 'payment-recorded-once: "o-2" 3 times'
    lost = {**twice, "invariant": "every-order-recorded", "invariantKind": "at_least_once_per_message",
            "keys": ['"o-1"'], "effects": [], "message": "every-order-recorded: event msg-1 got no effect"}
    assert violation_headline(lost) == 'every-order-recorded: "o-1" lost'
    other = {**twice, "invariant": "balance", "invariantKind": "aggregate", "keys": [],
             "message": "balance: the sum  of amounts is 30,\nabove 20 " + "x" * 80}
    headline = violation_headline(other)
    assert headline.startswith("balance: the sum of amounts is 30, above 20 x") and headline.endswith("...")
    assert len(headline) == HEADLINE_CHARS_MAX
    assert violation_headline(verdicts.violated()["violation"]).startswith('one-payment-per-order: "o-1" ')
    # Every kind with keys names them before anything a cut could take.
    unique = {**twice, "invariant": "one-message-per-seq", "invariantKind": "unique", "keys": ["1"], "effects": [],
              "rows": [{"seq": 1, "text": "hi"}, {"seq": 1, "text": "hello"}],
              "message": "one-message-per-seq: two rows of DO:Room table r-1/messages share seq 1"}
    assert violation_headline(unique) == "one-message-per-seq: 1 shared by 2 rows"
    references = {**unique, "invariant": "every-file-has-its-body", "invariantKind": "references", "keys": ['"files/f-1"'],
                  "message": "every-file-has-its-body: one row of D1:DB table files name r2_key \"files/f-1\" that no row ..."}
    assert violation_headline(references) == 'every-file-has-its-body: "files/f-1" not found'
    ordered = {**twice, "invariant": "forwarded-in-order", "invariantKind": "in_order_per_key", "keys": ['"customer-a"']}
    assert violation_headline(ordered) == 'forwarded-in-order: "customer-a" out of order'
    refines = {**twice, "invariant": "refund-follows-decision", "invariantKind": "refines", "keys": ['"o-1"'],
               "message": "refund-follows-decision: D1:DB run (req-1#1 effect #1) carries out a decideRefund decision that rested on a read"}
    headline = violation_headline(refines)
    assert headline.startswith('refund-follows-decision: "o-1": D1:DB run (req-1#1 effect #1)') and headline.endswith("...")


def test_a_failed_replay_is_drawn_as_the_report_draws_a_shrunk_trace():
    """What a failing regression test shows: the invariants broken, then the replayed trace."""
    from eutaxy.report.text import render_replay

    verdict = verdicts.violated()
    replayed = {"result": {"effects": verdict["trace"], "end": {"kind": "completed"}},
                "violations": [verdict["violation"]]}
    text = render_replay(replayed, scenario="queue-duplicate-write", platform="cloudflare", kept_events=["msg-1"])
    lines = _lines(text)
    assert lines[0] == "1 invariant(s) broken when replaying queue-duplicate-write (cloudflare):"
    assert lines[1].startswith("one-payment-per-order (at_most_once_per_key): ")
    assert "Shrunk trace (replayed; events kept: msg-1):" in lines
    trace = _lines(render_text(verdict))
    start = trace.index("Shrunk trace (replayed; events kept: msg-1):")
    assert lines[lines.index(trace[start]):] == trace[start:start + len(lines) - lines.index(trace[start])]
