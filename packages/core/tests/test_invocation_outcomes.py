"""Invocation outcomes: one record per handler call, added up per drive over a check's runs."""

import pytest

from eutaxy.core.invocation_outcomes import InvocationOutcome, OutcomeCounts, UncaughtError, scrub_addresses
from eutaxy.core.protocol import ProtocolError, RunResult

THREW = {"invocation": "msg-1#1", "drive": "queue", "outcome": "threw", "ordinal": 2,
         "error": {"name": "TypeError", "message": "x is undefined", "at": "src/index.ts:12"}}
RETRIED = {"invocation": "msg-2#1", "drive": "queue", "outcome": "returned", "retriedAll": True, "deadLettered": 1}


def test_a_record_reads_back_as_it_was_written():
    """to_data and from_data are inverses; optional fields are left out while they hold nothing."""
    batch = {"invocation": "msg-1#1", "drive": "sqs", "outcome": "returned", "messages": ["msg-1", "msg-2"]}
    for data in (THREW, RETRIED, batch, {"invocation": "req-1#1", "drive": "http", "outcome": "crashed"}):
        assert data == InvocationOutcome.from_data(data).to_data()
    with pytest.raises(AssertionError, match="a batch of one"):
        InvocationOutcome.from_data({**batch, "messages": ["msg-1"]})


def test_a_run_result_carries_its_invocations_only_when_it_has_some():
    """The field is optional in the protocol: a result without invocations reads as before."""
    bare = {"protocol": 1, "effects": [], "eligible": 0, "decisions": [], "end": {"kind": "completed"}}
    assert bare == RunResult.from_data(bare).to_data()
    assert [THREW] == RunResult.from_data({**bare, "invocations": [THREW]}).to_data()["invocations"]
    with pytest.raises(ProtocolError, match="invocations"):
        RunResult.from_data({**bare, "invocations": [{"outcome": "threw"}]})


def test_counts_add_up_per_drive_and_only_a_normal_return_in_a_fault_free_run_is_a_success():
    """A return that asked for every message again, or a return in a run with a fault, is no success."""
    threw, retried = InvocationOutcome.from_data(THREW), InvocationOutcome.from_data(RETRIED)
    returned = InvocationOutcome.from_data({"invocation": "msg-1#2", "drive": "queue", "outcome": "returned"})
    other = InvocationOutcome.from_data({"invocation": "req-1#1", "drive": "http", "outcome": "returned"})
    counts = OutcomeCounts(drive="queue").add(0, [threw, retried, other], fault_free=True)
    assert (1, 1, 1, 1, 2, False) == (
        counts.threw, counts.returned, counts.retried_all, counts.dead_lettered,
        counts.fault_free_invocations, counts.succeeded_fault_free,
    )
    assert ("msg-1#1", 0, "TypeError: x is undefined (at src/index.ts:12)") == (
        counts.first_error.invocation, counts.first_error.run, counts.first_error.error.text(),
    )
    faulted = counts.add(1, [returned], fault_free=False)
    assert (2, False) == (faulted.returned, faulted.succeeded_fault_free)
    assert faulted.add(2, [returned], fault_free=True).succeeded_fault_free


def test_an_error_message_is_one_line_with_no_memory_address():
    """Two runs of one plan print the same: addresses are scrubbed and the message is cut to one line."""
    error = UncaughtError.of("ValueError", "bad <Thing at 0x7f3a2b1c9d00>\nsecond line", None)
    assert "bad <Thing at 0x…> second line" == error.message
    assert "0x…" == scrub_addresses("0xdeadbeef12")
    assert len(UncaughtError.of("E", "x" * 1000, None).message) == 301
