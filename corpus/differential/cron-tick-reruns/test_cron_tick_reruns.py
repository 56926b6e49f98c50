"""Differential gate for cron-tick-reruns: the proxied cron drive and raw workerd must agree.

The case runs fault-free once through Eutaxy's cron drive (a plan with no faults, through the
platform) and once on the raw side, which calls the Worker's scheduled() on the real bindings
with a plain controller in the same Miniflare instance, tick by tick in the order of their
virtual times; who was run again (the tick that failed once, before the next tick), the
noRetry() that stops the third tick's re-run, the give-up of the fourth after its one re-run
and the D1 rows (each attempt's scheduledTime and expression) must be the same. A second test
plants a divergence on the proxied side, as a drive that lost the declared retries would, and
requires the runner to report it, so this gate can fail.
"""

from eutaxy.cloudflare.differential import decisions_of_raw
from agreement import agreed, raw_rows
from divergence import diverged, differing_tables

SEED = "cron-tick-reruns"
FIRST = 1767225600000
EVERY_MS = 5 * 60 * 1000


def test_proxied_and_raw_runs_agree(scenario):
    outcome = agreed(scenario, SEED)
    # Every attempt, in order: the failed second tick runs again before the third is due.
    assert ["tick-1#1", "tick-2#1", "tick-2#2", "tick-3#1", "tick-4#1", "tick-4#2"] == [a["invocation"] for a in outcome.raw["attempts"]]
    attempts = {a["invocation"]: a for a in decisions_of_raw(outcome.raw)}
    assert ["tick-1#1", "tick-2#2", "tick-3#1", "tick-4#2"] == list(attempts)
    assert [{"messageId": "tick-2", "op": "ack", "implicit": True}] == attempts["tick-2#2"]["decisions"]
    # noRetry() is the tick's explicit ack: it threw and is not run again.
    assert [{"messageId": "tick-3", "op": "ack", "implicit": False}] == attempts["tick-3#1"]["decisions"]
    assert [{"messageId": "tick-4", "attempts": 2}] == attempts["tick-4#2"]["deadLettered"]
    logged = sorted(raw_rows(outcome, "D1:DB", "attempts"), key=lambda row: row["id"])
    assert [
        (0, "tick 1 attempt 1"), (1, "tick 2 attempt 1"), (1, "tick 2 attempt 2"), (2, "tick 3 attempt 1"),
        (3, "tick 4 attempt 1"), (3, "tick 4 attempt 2"),
    ] == [((row["scheduled_time"] - FIRST) // EVERY_MS, row["note"]) for row in logged]
    assert {"*/5 * * * *"} == {row["cron"] for row in logged}
    assert [(FIRST, 1), (FIRST + EVERY_MS, 2)] == sorted((row["scheduled_time"], row["attempt"]) for row in raw_rows(outcome, "D1:DB", "done"))


def no_reruns(scenario):
    """As a drive that lost the declared retries would: the proxied side never runs a failed tick again."""
    scenario["drive"]["retries"] = 0


def test_a_planted_divergence_is_reported(scenario):
    outcome = diverged(scenario, SEED, no_reruns)
    assert {"D1:DB/attempts", "D1:DB/done"} == set(differing_tables(outcome))
    decisions = [difference for difference in outcome.differences if difference["kind"] == "decisions"]
    # The second tick is given up at once on the proxied side, run again and done on the raw side.
    assert {"invocation": "tick-2#1", "decisions": [], "deadLettered": [{"messageId": "tick-2", "attempts": 1}]} == decisions[0]["proxied"]
    assert "tick-2#2" == decisions[0]["raw"]["invocation"]
