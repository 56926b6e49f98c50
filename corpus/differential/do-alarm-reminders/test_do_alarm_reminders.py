"""Differential gate for do-alarm-reminders: virtual-time alarms against workerd's real ones.

The case runs fault-free once through Eutaxy's Durable Object proxy, whose alarms fire in
virtual time, and once with the handler on the raw namespace in the same Miniflare instance,
where workerd fires each alarm on the real clock and the raw side waits for them (a bounded
real wait; an alarm that does not finish in it ends the raw run as a difference). Every
object's key-value rows and SQL tables, the D1 audit table and the per-attempt decisions
must be the same. A second test plants a divergence on the proxied side, as an alarm model
that dropped an alarm set from inside alarm() would, and requires the runner to report it; a
third leaves an alarm a day ahead, which the raw side's bounded wait must name.
"""

import copy

from eutaxy.cloudflare.differential import DifferentialRunner
from agreement import agreed, raw_rows
from divergence import diverged

SEED = "do-alarm-reminders"


def test_proxied_and_raw_alarms_agree(scenario):
    outcome = agreed(scenario, SEED)
    # The case exercises what it says, on the raw side's real alarms: the replaced alarm
    # fired with its new label, each armed alarm re-armed once, the deleted one never fired.
    assert [{"label": "soon", "nth": 1, "retry": 0}, {"label": "soon", "nth": 2, "retry": 0}] == [
        {key: row[key] for key in ("label", "nth", "retry")} for row in sorted(raw_rows(outcome, "DO:REMINDERS", "alice/firings"), key=lambda row: row["nth"])
    ]
    assert {"key": "fired", "value": 2} in raw_rows(outcome, "DO:REMINDERS", "bob")
    assert [] == raw_rows(outcome, "DO:REMINDERS", "carol/firings")
    audit = raw_rows(outcome, "D1:DB", "audit")
    assert sorted(["alice", "alice", "bob", "bob"]) == sorted(row["account"] for row in audit)
    assert {"soon"} == {row["label"] for row in audit}


def drop_rearmed_alarms(scenario):
    """As an alarm model that dropped an alarm set from inside alarm() would: the proxied run
    fires one alarm per object (``alarmsPerObject`` 1), so the re-armed alarms never fire there
    while workerd's do."""
    scenario["bounds"]["alarmsPerObject"] = 1


def test_a_planted_divergence_is_reported(scenario):
    outcome = diverged(scenario, SEED, drop_rearmed_alarms)
    assert ["table"] == sorted({difference["kind"] for difference in outcome.differences}), outcome.differences
    tables = sorted(difference["table"] for difference in outcome.differences)
    assert ["D1:DB/audit", "DO:REMINDERS/alice", "DO:REMINDERS/alice/firings", "DO:REMINDERS/bob", "DO:REMINDERS/bob/firings"] == tables


def test_a_real_alarm_that_does_not_fire_within_the_bound_is_a_difference_naming_it(scenario):
    """Without carol's `disarm` her alarm stays a day ahead: the proxied run fires it in
    virtual time, workerd's real one cannot fire within the raw side's bounded wait (the
    effect hang bound, 1 s here), so the raw run ends unfinished and the difference names it."""
    pending = copy.deepcopy(dict(scenario))
    pending["drive"]["events"] = [event for event in pending["drive"]["events"] if event["body"]["op"] != "disarm"]
    pending["bounds"] = {**pending["bounds"], "effectHangMs": 1000}
    with DifferentialRunner(pending) as runner:
        outcome = runner.run(seed=SEED)
    (difference,) = outcome.differences
    assert "end" == difference["kind"] and {"kind": "completed"} == outcome.proxied["end"], difference
    assert 'DO:REMINDERS object "carol": its real alarm' in difference["message"], difference["message"]
    assert "after 1000 ms of real time" in difference["message"], difference["message"]
