"""Planted bug aws-batch-unprocessed: the checker must find it, and must pass its fixed twin."""

import os

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case

from eutaxy.report.text import render_text

HERE = os.path.dirname(os.path.abspath(__file__))
#: A run cap ends exploration; the budget is generous so the machine's speed never does.
RUNS_MAX = 200


def test_the_ignored_unprocessed_items_lose_a_line():
    """A partial BatchWriteItem leaves the order's last line unprocessed; the handler never retries it."""
    verdict = check_case(os.path.join(HERE, "aws-batch-unprocessed.sim.py"), max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "every-line-recorded" == verdict["violation"]["invariant"]
    (fault,) = verdict["schedule"]["faults"]
    assert ("partial", 0) == (fault["fault"], fault["ordinal"])
    assert [fault["invocation"]] == [event + "#1" for event in verdict["keptEvents"]]
    (result,) = [e for e in verdict["trace"] if e["op"] == "BatchWriteItem" and e["kind"] == "result"]
    # The first line was written for real; the last half of the batch came back unprocessed.
    (sent,) = result["payload"]["args"]["RequestItems"]["order_lines"][1:]
    assert {"order_lines": [sent]} == result["payload"]["result"]["UnprocessedItems"]
    (snapshot,) = [e for e in verdict["trace"] if e["kind"] == "snapshot" and e["target"] == "DynamoDB:order_lines"]
    assert [result["payload"]["args"]["RequestItems"]["order_lines"][0]["PutRequest"]["Item"]] == snapshot["payload"]["rows"]
    # The report names the fault and shows which line came back unprocessed.
    (fault_record,) = [e for e in verdict["trace"] if e["kind"] == "fault"]
    assert {"UnprocessedItems": {"order_lines": [sent]}} == fault_record["payload"]["left"]
    text = render_text(verdict)
    assert '!! partial' in text
    assert 'left: {"UnprocessedItems":{"order_lines":[{"PutRequest":{"Item":{"line":"fig","order_id":"o-2"}}}]}}' in text
    # The regression test the user gets fails here and passes on the fixed twin.
    assert_regression_test_catches(
        verdict, os.path.join(HERE, "aws-batch-unprocessed.sim.py"), os.path.join(HERE, "fixed", "aws-batch-unprocessed.sim.py")
    )


def test_the_fixed_twin_is_bounded():
    """Writing UnprocessedItems again until none are left records every line."""
    verdict = check_case(os.path.join(HERE, "fixed", "aws-batch-unprocessed.sim.py"), max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)
