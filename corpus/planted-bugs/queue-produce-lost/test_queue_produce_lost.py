"""Corpus gate for the queue-produce-lost planted bug.

The buggy intake, which sends each order to its own queue and answers 202 even when
the send failed, must be caught (VIOLATED on every-accepted-order-recorded, shrunk
to one fault, the error at the send, and the one order lost), and its fixed twin,
which answers 503 so the caller resends, must stay BOUNDED, both within a run cap
and a generous budget. The lost order and a delivered one are replayed on the buggy
intake: the row is written only by the consumer of the produced message, so the bug
is found only end to end. A planted bug the checker misses fails CI.
"""

from pathlib import Path

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case, replay_case

HERE = Path(__file__).resolve().parent
BUGGY = HERE / "queue-produce-lost.sim.py"
FIXED = HERE / "fixed" / "queue-produce-lost-fixed.sim.py"

#: A cap, so the verdict is the same on any machine (the bug is found in a few runs).
RUNS_MAX = 100

#: req-1's first attempt: the send is ordinal 0, the response 1.
SEND_ERROR = {"faults": [{"invocation": "req-1#1", "ordinal": 0, "fault": "error"}], "turns": []}
SEND_AMBIGUOUS = {"faults": [{"invocation": "req-1#1", "ordinal": 0, "fault": "ambiguous"}], "turns": []}


def test_buggy_intake_is_violated_with_one_fault():
    """An accepted order whose send failed is found, replayed and shrunk to one fault at the send."""
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "every-accepted-order-recorded" == verdict["violation"]["invariant"]
    faults = verdict["schedule"]["faults"]
    assert 1 == len(faults)
    assert "error" == faults[0]["fault"]
    assert 1 == len(verdict["keptEvents"])
    # The regression test the user gets fails here and passes on the fixed twin.
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def test_an_error_at_the_send_loses_the_order_after_the_2xx():
    """error at the send: nothing is queued, the caller gets 202 and never resends, no row is written."""
    outcome = replay_case(BUGGY, SEND_ERROR)
    assert ["every-accepted-order-recorded"] == [v["invariant"] for v in outcome["violations"]]
    effects = outcome["result"]["effects"]
    brief = [(e["invocation"], e["target"], e["op"], e["kind"]) for e in effects if e["invocation"].startswith("req-1")]
    assert ("req-1#1", "Queue:orders", "send", "fault") in brief
    response = next(e for e in effects if e["invocation"] == "req-1#1" and e["op"] == "response" and e["kind"] == "result")
    assert 202 == response["payload"]["result"]["status"]
    assert not any(e["invocation"].startswith("req-1#1/") for e in effects), "no message of req-1 was delivered"
    assert not any(e["invocation"] == "req-1#2" for e in effects), "the caller got its 2xx"


def test_an_ambiguous_send_is_delivered_to_the_intakes_own_consumer():
    """ambiguous at the send: the message went out, so its delivery records the order later in the run."""
    outcome = replay_case(BUGGY, SEND_AMBIGUOUS)
    assert [] == outcome["violations"]
    effects = outcome["result"]["effects"]
    delivered = [e for e in effects if e["invocation"] == "req-1#1/sent-1#1" and e["target"] == "D1:DB" and e["kind"] == "result"]
    assert ["o-1"] == [e["payload"]["args"]["params"][0] for e in delivered]


def test_fixed_twin_is_bounded():
    """Answering 503 on a failed send puts it in front of the caller, who resends."""
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)
