"""Durable Object alarms in virtual time on real workerd (objects/worker.ts, class Reminder).

Eutaxy takes setAlarm, getAlarm and deleteAlarm over on each object's storage, so no alarm is
set on the real clock: an alarm fires when the run's virtual clock reaches it, as one effect
of its own invocation, is retried after 2 s, 4 s, 8 s while it fails (up to six retries and
maxRedeliveries, with retryCount and isRetry), and an object fires at most alarmsPerObject.
"""

from pathlib import Path

import pytest

from eutaxy.cloudflare import create_platform, d1_rows, d1_schema, define_scenario, durable_object, every_row, http
from eutaxy.engine.check import check_scenario, replay_scenario

pytestmark = pytest.mark.usefixtures("toolchain")

FIXTURE = Path(__file__).resolve().parent / "objects"
EPOCH_MS = 1767225600000


def scenario(paths, seed=None, *, bounds=None):
    return define_scenario(
        name="alarms",
        root=FIXTURE,
        source=FIXTURE / "alarms.sim.py",
        setup=[d1_schema("DB", "./schema.sql"), durable_object("REMINDER", {"r": seed or {}})],
        drive=http([{"path": path} for path in paths]),
        bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 1, "budgetMs": 60_000, **(bounds or {})},
    )


def run(built, faults=()):
    with create_platform(built) as platform:
        result = replay_scenario(built, platform, {"faults": list(faults), "turns": []}, seed="alarms")["result"]
    assert "completed" == result["end"]["kind"], result["end"]
    return result


def alarm_points(result):
    """Each alarm attempt: (invocation, retryCount, virtual ms after the epoch, kinds recorded)."""
    seen = {}
    for effect in result["effects"]:
        if (effect["target"], effect["op"]) == ("DO:REMINDER", "alarm"):
            entry = seen.setdefault(effect["invocation"], [effect["payload"]["args"]["retryCount"], effect["time"] - EPOCH_MS, []])
            entry[2].append(effect["kind"])
    return [(invocation, *entry) for invocation, entry in seen.items()]


def rows(result, target, table):
    [found] = [e["payload"]["rows"] for e in result["effects"] if (e["kind"], e["target"], e["op"]) == ("snapshot", target, table)]
    return found


def test_an_alarm_fires_in_virtual_time_as_one_effect_of_its_own_invocation():
    """setAlarm(now + 5 s) fires once the run's clock reaches it, never on the real clock; its D1 write is its own."""
    result = run(scenario(["/remind"]))
    [(invocation, retry_count, at_ms, kinds)] = alarm_points(result)
    assert ("DO:REMINDER/r/alarm.1#1", 0, ["call", "result"]) == (invocation, retry_count, kinds)
    assert at_ms >= 5000
    inner = [e for e in result["effects"] if e["invocation"] == invocation and e["target"] == "D1:DB" and e["kind"] == "call"]
    assert [1] == [e["ordinal"] for e in inner]
    assert [{"key": "fired", "value": 1}] == rows(result, "DO:REMINDER", "r")


def test_a_failing_alarm_is_retried_after_two_then_four_seconds_with_retry_count_and_is_retry():
    """failUntil 2: attempts 1 and 2 throw, the third (retryCount 2, isRetry) succeeds; maxRedeliveries 2 allows it."""
    result = run(scenario(["/remind"], {"failUntil": 2}))
    points = alarm_points(result)
    assert ["DO:REMINDER/r/alarm.1#1", "DO:REMINDER/r/alarm.1#2", "DO:REMINDER/r/alarm.1#3"] == [p[0] for p in points]
    assert [0, 1, 2] == [p[1] for p in points]
    first, second, third = (p[2] for p in points)
    assert second - first >= 2000 and second - first < 3000
    assert third - second >= 4000 and third - second < 5000
    accounts = sorted(row["account"] for row in rows(result, "D1:DB", "deposits"))
    assert ["alarm-0-false", "alarm-1-true", "alarm-2-true"] == accounts


def test_retries_stop_at_max_redeliveries():
    """failUntil 9 with maxRedeliveries 1: one retry, then the alarm is given up."""
    result = run(scenario(["/remind"], {"failUntil": 9}, bounds={"maxRedeliveries": 1}))
    assert ["DO:REMINDER/r/alarm.1#1", "DO:REMINDER/r/alarm.1#2"] == [p[0] for p in alarm_points(result)]


@pytest.mark.parametrize("fault", ["crash_after", "error", "crash_before"])
def test_a_faulted_alarm_counts_as_failed_and_is_retried(fault):
    """crash_after: it ran and committed, then retried (two D1 rows); crash_before and error: it never ran, one row."""
    result = run(scenario(["/remind"]), [{"invocation": "DO:REMINDER/r/alarm.1#1", "ordinal": 0, "fault": fault}])
    assert ["DO:REMINDER/r/alarm.1#1", "DO:REMINDER/r/alarm.1#2"] == [p[0] for p in alarm_points(result)]
    expected = ["alarm-0-false", "alarm-1-true"] if fault == "crash_after" else ["alarm-1-true"]
    assert expected == sorted(row["account"] for row in rows(result, "D1:DB", "deposits"))


def test_an_object_that_keeps_rearming_fires_at_most_alarms_per_object():
    """rearm: each alarm sets the next; the run fires 3 (the default), or 2 when the scenario says."""
    assert 3 == len(alarm_points(run(scenario(["/remind"], {"rearm": True}))))
    assert 2 == len(alarm_points(run(scenario(["/remind"], {"rearm": True}, bounds={"alarmsPerObject": 2}))))


def test_an_alarm_set_during_a_failing_alarm_supersedes_its_retry():
    """rearm and failUntil: each attempt sets the next alarm, then throws; the change drops the retry, so every firing is a first attempt."""
    points = alarm_points(run(scenario(["/remind"], {"rearm": True, "failUntil": 9})))
    assert ["DO:REMINDER/r/alarm.1#1", "DO:REMINDER/r/alarm.2#1", "DO:REMINDER/r/alarm.3#1"] == [p[0] for p in points]
    assert [0, 0, 0] == [p[1] for p in points]


def test_a_later_set_alarm_replaces_the_earlier():
    """Two setAlarm calls: one alarm, at the second's time (1 s after its request)."""
    result = run(scenario(["/remind", "/remind-sooner"]))
    [(_, _, at_ms, _)] = alarm_points(result)
    assert 1000 <= at_ms < 5000


def test_a_transactions_alarm_applies_on_commit_and_not_after_a_rollback():
    assert 1 == len(alarm_points(run(scenario(["/remind-txn"]))))
    assert 0 == len(alarm_points(run(scenario(["/remind-rollback"]))))


def test_set_alarm_inside_transaction_sync_applies_when_it_returns_and_not_when_it_throws():
    """As workerd: the closure's alarm commits with it, and a closure that throws rolls it back."""
    assert 1 == len(alarm_points(run(scenario(["/remind-sync"]))))
    assert 0 == len(alarm_points(run(scenario(["/remind-sync-throwing"]))))


def answers(result):
    return [e["payload"]["result"]["value"] for e in result["effects"] if (e["target"], e["kind"]) == ("DO:REMINDER", "result") and e["op"] != "alarm"]


def test_the_storages_set_alarm_inside_a_throwing_transaction_is_rolled_back_and_get_alarm_says_so():
    """storage.setAlarm (not the transaction's) inside transaction() whose closure throws: no alarm fires, getAlarm() is null."""
    result = run(scenario(["/remind-throwing-txn"]))
    assert [None] == answers(result)
    assert [] == alarm_points(result)


def test_delete_all_deletes_the_alarm_as_the_compatibility_date_says():
    """workerd's delete_all_deletes_alarm, on from 2026-02-24: at 2026-01-01 the alarm survives deleteAll() and fires; at 2026-03-01 it is gone."""
    before = run(scenario(["/remind-delete-all"]))
    [kept] = answers(before)
    assert kept is not None and 1 == len(alarm_points(before))
    built = scenario(["/remind-delete-all"])
    built["worker"] = {**built["worker"], "config": "./wrangler-2026-03.jsonc"}
    after = run(built)
    assert [None] == answers(after)
    assert [] == alarm_points(after)


def _timed(second_at_ms):
    built = scenario(["/remind"])
    built["drive"] = http([{"path": "/remind"}, {"path": "/remind", "at_ms": second_at_ms}])
    return built


def test_an_alarm_due_before_a_later_request_fires_first_and_one_due_after_it_waits():
    """A request at 10 s comes after the alarm its first request set for 5 s; one at 2 s comes
    before it, and its own setAlarm moves the alarm to 7 s."""
    later = run(_timed(10_000))
    order = list(dict.fromkeys(e["invocation"] for e in later["effects"] if e["kind"] != "snapshot"))
    assert ["req-1#1", "DO:REMINDER/r/alarm.1#1", "req-2#1", "DO:REMINDER/r/alarm.2#1"] == order
    starts = {invocation: min(e["time"] for e in later["effects"] if e["invocation"] == invocation) - EPOCH_MS for invocation in order}
    assert starts["DO:REMINDER/r/alarm.1#1"] < 10_000 <= starts["req-2#1"]
    sooner = run(_timed(2_000))
    order = list(dict.fromkeys(e["invocation"] for e in sooner["effects"] if e["kind"] != "snapshot"))
    assert ["req-1#1", "req-2#1", "DO:REMINDER/r/alarm.1#1"] == order
    [(_, _, at_ms, _)] = alarm_points(sooner)
    assert 7_000 <= at_ms < 7_100


def test_a_retry_max_redeliveries_stops_is_a_cut_naming_the_alarm():
    """maxRedeliveries 1 below Cloudflare's six alarm retries: the run records a cut, which alarm and where."""
    result = run(scenario(["/remind"], {"failUntil": 9}, bounds={"maxRedeliveries": 1}))
    assert [{"bound": "maxRedeliveries", "where": "DO:REMINDER/r", "invocation": "DO:REMINDER/r/alarm.1#2",
             "left": ["alarm.1"], "limit": 1, "platformLimit": 6}] == result["cuts"]


def test_with_no_max_redeliveries_a_failing_alarm_is_retried_six_times_as_cloudflare_does():
    """The platform's limit alone: seven attempts, then the alarm is given up, and no cut."""
    result = run(scenario(["/remind"], {"failUntil": 99}))
    assert [f"DO:REMINDER/r/alarm.1#{n}" for n in range(1, 8)] == [p[0] for p in alarm_points(result)]
    assert "cuts" not in result


def test_a_self_rearming_alarm_reports_alarms_per_object_among_the_bounds_reached():
    """Each firing sets the next: the run ends with an alarm pending, a cut; the check names the bound and its counts."""
    built = scenario(["/remind"], {"rearm": True})
    assert [{"bound": "alarmsPerObject", "where": "DO:REMINDER/r", "invocation": "DO:REMINDER/r/alarm.3#1",
             "left": ["alarm.4"], "limit": 3}] == run(built)["cuts"]
    built["invariants"] = [every_row("deposits counted", d1_rows("DB", "deposits"), [{"column": "cents", "op": "gte", "value": 0}])]
    with create_platform(built) as platform:
        verdict = check_scenario(built, platform, max_runs=3)
    assert "bounded" == verdict["kind"]
    assert "alarmsPerObject" in verdict["provenance"]["boundsReached"]
    [count] = verdict["provenance"]["cuts"]
    assert ("alarmsPerObject", 3, 3, ["DO:REMINDER/r"]) == (count["bound"], count["runs"], count["limit"], count["where"])


def test_in_a_concurrent_run_a_call_enters_the_object_while_its_alarm_awaits_a_d1_call():
    """The alarm is a start of its own; once its alarm() parks at its D1 call (the input gate open),
    req-2's call enters the same object, and the two D1 calls are turns inside it."""
    built = scenario(["/remind-now", "/remind-note"], bounds={"maxConcurrentInvocations": 2, "maxFaultsPerRun": 0})
    # req-1 sets the alarm to now; the alarm starts and enters r; req-2 starts and enters r; the D1 calls in order.
    with create_platform(built) as platform:
        result = replay_scenario(built, platform, {"faults": [], "turns": [0, 0, 0, 1, 0, 0, 0, 0]}, seed="alarms")["result"]
    assert "completed" == result["end"]["kind"], result["end"]
    alarm = "DO:REMINDER/r/alarm.1#1"
    calls = [(e["invocation"], e["target"], e["op"]) for e in result["effects"] if e["kind"] == "call" and not e["target"].startswith("Http:")]
    assert [
        ("req-1#1", "DO:REMINDER", "schedule"), (alarm, "DO:REMINDER", "alarm"), ("req-2#1", "DO:REMINDER", "note"),
        (alarm, "D1:DB", "run"), ("req-2#1", "D1:DB", "run"),
    ] == calls
    inside = [{"kind": "effect", "invocation": inv, "target": "D1:DB", "object": "DO:REMINDER/r"} for inv in (alarm, "req-2#1")]
    assert inside in [d["options"] for d in result["decisions"] if d["kind"] == "turn"]
    assert [{"key": "fired", "value": 1}, {"key": "notes", "value": 1}] == rows(result, "DO:REMINDER", "r")
