"""Differential gate for do-after-timers: work after a Durable Object's answer, in virtual time against workerd's real timers.

The case runs fault-free once through Eutaxy's Durable Object proxy, where each object's work
after its answer (timers, a timer arming another, a ctx.waitUntil promise) runs as the
object's own invocation in virtual time, and once with the handler on the raw namespace in the
same Miniflare instance, where workerd fires the timers on the real clock and the raw side
waits (bounded) for them. Every object's key-value rows and SQL tables and the D1 audit table
must be the same. A second test plants a divergence on the proxied side, as a model that
never ran an object's timers after its answer would (afterWorkTimerLimit 0 cuts the work at
its first timer), and requires the runner to report it.
"""

from agreement import agreed, raw_rows
from divergence import differing_tables, diverged

SEED = "do-after-timers"


def test_proxied_and_raw_work_after_the_answer_agree(scenario):
    outcome = agreed(scenario, SEED)
    # The case exercises what it says, on the raw side's real timers: every job finished.
    assert [{"key": f"job:{job}", "value": "done"} for job in ("j-1", "j-2", "j-4")] == raw_rows(outcome, "DO:RUNNERS", "ada")
    assert [{"job": "j-1", "steps": 1}, {"job": "j-2", "steps": 2}, {"job": "j-4", "steps": 1}] == raw_rows(outcome, "DO:RUNNERS", "ada/finished")
    assert ["j-1", "j-2", "j-3", "j-4", "j-5"] == sorted(row["job"] for row in raw_rows(outcome, "D1:DB", "audit"))
    # On the proxied side the work is the objects' own invocations.
    invocations = {effect["invocation"] for effect in outcome.proxied["effects"]}
    assert {"DO:RUNNERS/ada/after", "DO:RUNNERS/bo/after"} <= invocations


def never_run_timers_after_the_answer(scenario):
    """As a model that dropped an object's timers once it answered: the work is cut at its first timer."""
    scenario["bounds"]["afterWorkTimerLimit"] = 0


def test_a_planted_divergence_is_reported(scenario):
    outcome = diverged(scenario, SEED, never_run_timers_after_the_answer)
    tables = sorted(differing_tables(outcome))
    assert ["D1:DB/audit", "DO:RUNNERS/ada", "DO:RUNNERS/ada/finished", "DO:RUNNERS/bo", "DO:RUNNERS/bo/finished"] == tables, outcome.differences
