"""Corpus gate for the kv-idempotency-expiry planted bug: a bug only a later event shows.

The Worker remembers idempotency keys in KV for an hour (expirationTtl 3600); the client
resends its charge an hour later (the drive's at_ms 3,600,000), finds the key expired and is
charged twice. The check must find it with no fault, shrink away the other customer's
charge and keep the resend at its time; the fixed twin, which keeps keys a day, must stay
BOUNDED; and the regression test the user gets must fail on the bug and pass on the fix.
"""

from pathlib import Path

from planted import assert_bounded_with_evidence, assert_regression_test_catches, check_case

HERE = Path(__file__).resolve().parent
BUGGY = HERE / "kv-idempotency-expiry.sim.py"
FIXED = HERE / "fixed" / "kv-idempotency-expiry-fixed.sim.py"

#: A cap, so the verdict is the same on any machine (the bug is found in the first run).
RUNS_MAX = 40
#: The virtual epoch and an hour: when the resend is sent.
EPOCH_MS = 1767225600000
HOUR_MS = 3_600_000


def test_buggy_charge_is_violated_by_the_resend_an_hour_later():
    verdict = check_case(BUGGY, max_runs=RUNS_MAX)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "one-charge-per-order" == verdict["violation"]["invariant"]
    assert [] == verdict["schedule"]["faults"]
    assert ["req-1", "req-3"] == verdict["keptEvents"]
    puts = [e for e in verdict["trace"] if e["target"] == "KV:LEDGER" and e["op"] == "put" and e["kind"] == "result"]
    assert ["req-1#1", "req-3#1"] == [e["invocation"] for e in puts]
    assert EPOCH_MS + HOUR_MS <= puts[1]["time"] < EPOCH_MS + HOUR_MS + 100
    assert_regression_test_catches(verdict, BUGGY, FIXED)


def test_fixed_twin_is_bounded():
    verdict = check_case(FIXED, max_runs=RUNS_MAX, audit=True)
    assert_bounded_with_evidence(verdict)
