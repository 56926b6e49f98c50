"""Differential gate for rpc-ledger-calls: the proxied rpc drive and raw workerd must agree.

The case runs fault-free once through Eutaxy's rpc drive (a plan with no faults, through the
platform) and once on the raw side, which constructs the Ledger entrypoint on the real
bindings and calls each method in the same Miniflare instance; every answer (values, the
RangeError's name and message), the resend of the call that threw, the give-up of the debit
refused twice and the D1 rows must be the same. A second test plants a divergence on the
proxied side, as a drive passing the wrong argument would, and requires the runner to report
it, so this gate can fail.
"""

from eutaxy.cloudflare.differential import decisions_of_raw
from agreement import agreed, raw_rows
from divergence import diverged, differing_tables

SEED = "rpc-ledger-calls"


def test_proxied_and_raw_runs_agree(scenario):
    outcome = agreed(scenario, SEED)
    attempts = decisions_of_raw(outcome.raw)
    assert ["call-1#1", "call-2#1", "call-3#1", "call-4#1", "call-2#2", "call-3#2"] == [a["invocation"] for a in attempts]
    answers = {a["invocation"]: a["answer"] for a in attempts}
    assert {"ok": True, "value": {"account": "alice", "balance": 1200}} == answers["call-1#1"]
    assert {"ok": False, "error": {"name": "RangeError", "message": "alice holds 1200, not 5000"}} == answers["call-2#1"]
    assert {"ok": True, "value": 1200} == answers["call-4#1"]
    assert {"ok": True, "value": {"account": "alice", "balance": 1000}} == answers["call-3#2"]
    # The refused debit is resent once (retries=1), then given up: the raw loop's dead letter.
    assert [{"messageId": "call-2", "attempts": 2}] == attempts[4]["deadLettered"]
    assert [-200, 0, 1200] == sorted(row["cents"] for row in raw_rows(outcome, "D1:DB", "entries"))


def credit_a_cent_more(scenario):
    """As a buggy drive would: the proxied side credits alice 1 cent more than the call says."""
    scenario["drive"]["events"][0]["args"][1] += 1


def test_a_planted_divergence_is_reported(scenario):
    outcome = diverged(scenario, SEED, credit_a_cent_more)
    assert "D1:DB/entries" in differing_tables(outcome)
    assert any(difference["kind"] == "decisions" for difference in outcome.differences)
