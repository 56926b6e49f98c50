"""The fault ladders and the one redelivery rule."""

from __future__ import annotations

from eutaxy.core import faults


def test_ladders_in_order():
    """Ladders list faults in the order the protocol's options use."""
    assert ("crash_before", "crash_after", "ambiguous", "error") == faults.WRITE_FAULTS
    assert ("crash_before", "crash_after", "error") == faults.READ_FAULTS
    assert ("crash_before", "crash_after") == faults.DECISION_FAULTS
    assert ("crash_before",) == faults.RESPONSE_FAULTS
    assert ("crash_before", "ambiguous") == faults.response_faults(has_deadline=True)
    assert ("cut_off",) == faults.BACKGROUND_FAULTS
    assert ("crash_before", "crash_after", "ambiguous", "error", "partial") == faults.BATCH_WRITE_FAULTS
    assert 7 == len(set(faults.FAULT_KINDS))


def test_may_redeliver_examples():
    """A queue with max_retries 3 under maxRedeliveries 2 delivers three times in all."""
    assert faults.may_redeliver(1, 3, 2)
    assert faults.may_redeliver(2, 3, 2)
    assert not faults.may_redeliver(3, 3, 2)
    assert not faults.may_redeliver(1, 0, 5)
    assert not faults.may_redeliver(1, 5, 0)
