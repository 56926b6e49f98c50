"""The differential runner: the comparison on plain data, the redelivery table, a cron drive's
ticks as the raw loop sends them and as its proxied run reads, and both sides end to end on the
planted bug's Worker (fault-free, so the buggy and the fixed consumer both agree with their raw
runs).

The end-to-end tests start the pinned Node toolchain and skip (saying why) only when it
is not installed, as test_platform.py does.
"""

import copy
from pathlib import Path

import pytest

from eutaxy.cloudflare import cron, load_scenario, queue
from eutaxy.cloudflare import host as host_module
from eutaxy.cloudflare.differential import (
    RAW_PROTOCOL,
    CloudflareRawSide,
    DifferentialRunner,
    compare,
    decisions_of_effects,
    raw_queue,
    redelivery_table,
    run_differential,
    ticks_of_run,
)
from eutaxy.core.effects import VIRTUAL_EPOCH_MS
from eutaxy.core.errors import UserError
from eutaxy.core.faults import may_redeliver
from eutaxy.engine.differential import Delivery
from worker_project import scenario_in, write_project

CORPUS = Path(__file__).resolve().parents[3] / "corpus" / "planted-bugs" / "queue-duplicate-write"
BUGGY = CORPUS / "queue-duplicate-write.sim.py"
FIXED = CORPUS / "fixed" / "queue-duplicate-write-fixed.sim.py"

ROW_1 = {"id": 1, "order_id": "o-1", "amount_cents": 1200}
ROW_2 = {"id": 2, "order_id": "o-2", "amount_cents": 500}


def effect(target, op, kind, payload, invocation, ordinal=0):
    return {"target": target, "op": op, "kind": kind, "payload": payload, "invocation": invocation, "ordinal": ordinal, "time": 0}


def ack(invocation, message_id, *, effective=True, implicit=False, op="ack"):
    args = {"messageId": message_id, "body": {}}
    if implicit:
        args["implicit"] = True
    return effect("Queue:payments", op, "result", {"args": args, "result": {"effective": effective}}, invocation)


def proxied(rows, *extra):
    snapshot = effect("D1:DB", "payments", "snapshot", {"rows": rows}, "snapshot")
    return {"protocol": 1, "effects": [*extra, snapshot], "eligible": 0, "decisions": [], "end": {"kind": "completed"}}


def raw(rows, attempts=()):
    return {"protocol": 1, "attempts": list(attempts), "snapshots": [{"target": "D1:DB", "table": "payments", "rows": rows}],
            "end": {"kind": "completed"}}


def attempt(invocation, decisions=(), dead=()):
    return {"invocation": invocation, "messages": [invocation.split("#")[0]], "outcome": "returned",
            "decisions": list(decisions), "redelivered": [], "deadLettered": list(dead)}


# ---------------------------------------------------------------------------
# The comparison, on plain data.


def test_the_same_rows_in_another_order_agree():
    assert [] == compare(proxied([ROW_1, ROW_2]), raw([ROW_2, dict(reversed(list(ROW_1.items())))]), queue="payments")


def test_a_changed_parameter_is_reported_as_the_rows_each_side_alone_has():
    changed = {**ROW_2, "amount_cents": 501}
    [difference] = compare(proxied([ROW_1, changed]), raw([ROW_1, ROW_2]), queue="payments")
    assert "table" == difference["kind"]
    assert "D1:DB/payments" == difference["table"]
    assert ['{"amount_cents":501,"id":2,"order_id":"o-2"}'] == difference["proxiedOnly"]
    assert ['{"amount_cents":500,"id":2,"order_id":"o-2"}'] == difference["rawOnly"]


def test_rows_compare_as_a_multiset():
    [difference] = compare(proxied([ROW_1, ROW_1]), raw([ROW_1]), queue="payments")
    assert (1, 0) == (len(difference["proxiedOnly"]), len(difference["rawOnly"]))


def test_a_table_one_side_lacks_is_reported_even_when_empty():
    one_sided = raw([ROW_1])
    one_sided["snapshots"].append({"target": "D1:DB", "table": "audit", "rows": []})
    [difference] = compare(proxied([ROW_1]), one_sided, queue="payments")
    assert "D1:DB/audit" == difference["table"]
    assert "only raw" in difference["message"]


def test_decisions_compare_per_attempt_and_ineffective_ones_are_ignored():
    effects = [ack("msg-1#1", "msg-1"), ack("msg-1#1", "msg-1", effective=False)]
    agreeing = raw([ROW_1], [attempt("msg-1#1", [{"messageId": "msg-1", "op": "ack", "implicit": False}])])
    assert [] == compare(proxied([ROW_1], *effects), agreeing, queue="payments")
    retried = raw([ROW_1], [attempt("msg-1#1", [{"messageId": "msg-1", "op": "retry", "implicit": False}])])
    [difference] = compare(proxied([ROW_1], *effects), retried, queue="payments")
    assert ("decisions", 0) == (difference["kind"], difference["index"])


def test_an_implicit_ack_differs_from_an_explicit_one_and_dead_letters_count():
    effects = [ack("msg-1#1", "msg-1", implicit=True),
               effect("Queue:payments", "dead_letter", "result", {"args": {"messageId": "msg-2", "attempts": 3}, "result": {"deadLettered": True}}, "msg-2#3")]
    assert [
        {"invocation": "msg-1#1", "decisions": [{"messageId": "msg-1", "op": "ack", "implicit": True}], "deadLettered": []},
        {"invocation": "msg-2#3", "decisions": [], "deadLettered": [{"messageId": "msg-2", "attempts": 3}]},
    ] == decisions_of_effects(effects, "payments")
    explicit = raw([ROW_1], [attempt("msg-1#1", [{"messageId": "msg-1", "op": "ack", "implicit": False}]),
                             attempt("msg-2#3", dead=[{"messageId": "msg-2", "attempts": 3}])])
    assert ["decisions"] == [d["kind"] for d in compare(proxied([ROW_1], *effects), explicit, queue="payments")]


def test_a_side_that_did_not_complete_is_one_difference():
    unsupported = {**proxied([ROW_1]), "end": {"kind": "unsupported", "cause": "unseen_wait", "detail": "..."}}
    [difference] = compare(unsupported, raw([ROW_2]), queue="payments")
    assert "end" == difference["kind"]


# ---------------------------------------------------------------------------
# The redelivery table: core's may_redeliver, never a copy of it.


@pytest.mark.parametrize("max_redeliveries", [0, 1, 2, 3, 5])
def test_the_redelivery_table_is_core_may_redeliver_for_each_attempt(max_redeliveries):
    scenario = load_scenario(FIXED)
    scenario = {**scenario, "bounds": {**scenario["bounds"], "maxRedeliveries": max_redeliveries}}
    table = redelivery_table(scenario)
    # The planted bug's consumer leaves max_retries to Cloudflare's default, 3.
    assert [may_redeliver(attempts, 3, max_redeliveries) for attempts in range(1, len(table) + 1)] == table
    assert table[-1] is False and all(table[:-1])
    assert min(3, max_redeliveries) + 1 == len(table)


def test_the_raw_loop_delivers_the_drives_batch_size():
    assert 1 == raw_queue(load_scenario(FIXED)).batch_size
    scenario = copy.deepcopy(load_scenario(FIXED))
    scenario["drive"]["batchSize"] = 2
    # The fixed twin's config sets max_batch_size 1: a larger batch is refused, not quietly cut.
    with pytest.raises(UserError, match="max_batch_size to 1"):
        raw_queue(scenario)


def test_only_queue_rpc_and_cron_drives_have_a_raw_side():
    scenario = copy.deepcopy(load_scenario(FIXED))
    scenario["drive"] = {"kind": "http", "events": []}
    with pytest.raises(UserError, match="drives queues, rpc calls and cron ticks only, not 'http'"):
        redelivery_table(scenario)


def test_a_queue_event_with_at_ms_is_refused():
    scenario = copy.deepcopy(load_scenario(FIXED))
    scenario["drive"] = queue("payments", [{"body": {}}, {"body": {}, "at_ms": 5}])
    with pytest.raises(UserError, match=r"events \['msg-2'\] carry at_ms"):
        raw_queue(scenario)


# ---------------------------------------------------------------------------
# A cron drive: its ticks as the raw loop sends them, its proxied run as the loop reads it.


def test_the_raw_loop_sends_each_tick_alone_at_its_virtual_time_with_the_retries_as_the_limit():
    ticks = raw_queue({"drive": cron("*/5 * * * *", ticks=3, retries=2, name="jobs")})
    assert (1, 2) == (ticks.batch_size, ticks.platform_limit)
    assert (0, 300_000, 600_000) == ticks.due_ms
    assert [
        ("tick-1", {"scheduledTime": VIRTUAL_EPOCH_MS, "cron": "*/5 * * * *"}),
        ("tick-2", {"scheduledTime": VIRTUAL_EPOCH_MS + 300_000, "cron": "*/5 * * * *"}),
        ("tick-3", {"scheduledTime": VIRTUAL_EPOCH_MS + 600_000, "cron": "*/5 * * * *"}),
    ] == list(ticks.events)


def outcome(invocation, kind):
    return {"invocation": invocation, "drive": "cron", "outcome": kind}


def cron_point(invocation, op, args, result):
    return effect("Cron:jobs", op, "result", {"args": args, "result": result}, invocation)


def test_a_proxied_cron_run_reads_no_retry_as_the_ticks_ack_and_gave_up_as_its_dead_letter():
    run = {
        "invocations": [
            outcome("tick-1#1", "returned"), outcome("tick-2#1", "threw"), outcome("tick-2#2", "returned"),
            outcome("tick-3#1", "threw"), outcome("tick-4#1", "returned"), outcome("tick-5#1", "threw"),
            {"invocation": "msg-1#1", "drive": "queue", "outcome": "returned"},
        ],
        "effects": [
            cron_point("tick-3#1", "no_retry", {"tickId": "tick-3"}, {"effective": True}),
            cron_point("tick-3#1", "no_retry", {"tickId": "tick-3"}, {"effective": False}),
            cron_point("tick-4#1", "no_retry", {"tickId": "tick-4"}, {"effective": True}),
            effect("Cron:other", "no_retry", "result", {"args": {"tickId": "tick-5"}, "result": {"effective": True}}, "tick-5#1"),
            cron_point("tick-5#1", "gave_up", {"tickId": "tick-5", "attempts": 1}, {"gaveUp": True}),
        ],
    }
    explicit = [{"messageId": "tick-3", "op": "ack", "implicit": False}]
    assert [
        {"invocation": "tick-1#1", "decisions": [{"messageId": "tick-1", "op": "ack", "implicit": True}], "deadLettered": []},
        # tick-2#1 threw with nothing decided: left out, as the raw loop leaves it out.
        {"invocation": "tick-2#2", "decisions": [{"messageId": "tick-2", "op": "ack", "implicit": True}], "deadLettered": []},
        {"invocation": "tick-3#1", "decisions": explicit, "deadLettered": []},
        # noRetry() and then returned: the explicit ack counts, no implicit one after it.
        {"invocation": "tick-4#1", "decisions": [{"messageId": "tick-4", "op": "ack", "implicit": False}], "deadLettered": []},
        {"invocation": "tick-5#1", "decisions": [], "deadLettered": [{"messageId": "tick-5", "attempts": 1}]},
    ] == ticks_of_run(run, "jobs")


class TickHost:
    """Stands in for the Node host: answers a tick attempt that called noRetry() and threw."""

    def __init__(self):
        self.requests = []

    def request(self, message, *, timeout_s):
        self.requests.append(message["request"])
        return {"ok": True, "result": {"protocol": RAW_PROTOCOL, "outcome": "threw", "calls": [{"messageId": "tick-2", "op": "no_retry"}]}}

    def log_tail(self):
        return ""


def test_a_raw_tick_is_sent_as_one_tick_op_and_its_no_retry_read_as_the_ticks_ack():
    scenario = {"drive": cron("*/5 * * * *", ticks=2, retries=1, name="jobs"), "bounds": {"effectHangMs": 2_000}}
    host = TickHost()
    tick = raw_queue(scenario).events[1]
    record = CloudflareRawSide(scenario, lambda: host).attempt("tick-2#1", [Delivery(id=tick[0], body=tick[1], attempts=1)])
    assert [{"protocol": RAW_PROTOCOL, "op": "tick", "invocation": "tick-2#1", "hangMs": 2_000,
             "tick": {"id": "tick-2", "scheduledTime": VIRTUAL_EPOCH_MS + 300_000, "cron": "*/5 * * * *"}}] == host.requests
    assert ("threw", (("tick-2", "ack"),)) == (record.outcome, record.calls)


# ---------------------------------------------------------------------------
# The raw side's hang threshold: the engine's effect hang bound.


class RecordingHost:
    """Stands in for the Node host: records each request and its timeout, answers an attempt."""

    def __init__(self):
        self.requests = []

    def request(self, message, *, timeout_s):
        self.requests.append((message, timeout_s))
        return {"ok": True, "result": {"protocol": RAW_PROTOCOL, "outcome": "returned", "calls": []}}

    def log_tail(self):
        return ""


def test_a_raw_attempt_waits_the_effect_hang_bound_not_the_budget():
    # A large budget beside a small hang bound: the attempt must carry the hang bound.
    scenario = copy.deepcopy(load_scenario(FIXED))
    scenario["bounds"] = {**scenario["bounds"], "budgetMs": 600_000, "effectHangMs": 1_234}
    host = RecordingHost()
    side = CloudflareRawSide(scenario, lambda: host)
    side.attempt("msg-1#1", [Delivery(id="msg-1", body={"n": 1}, attempts=1)])
    [(message, timeout_s)] = host.requests
    assert 1_234 == message["request"]["hangMs"]
    assert host_module.RUN_TIMEOUT_FLOOR_S == timeout_s


# ---------------------------------------------------------------------------
# Both sides, end to end.


@pytest.mark.parametrize("path", [BUGGY, FIXED], ids=["buggy", "fixed"])
def test_fault_free_runs_of_the_planted_bug_agree(toolchain, path):
    assert [] == run_differential(path)


def test_the_runner_reports_a_divergence_planted_in_the_proxied_answer(toolchain):
    class DropsARow:
        """A double at the comparison level: the proxied side's snapshot loses o-2's row."""

        def __init__(self, inner):
            self._inner = inner

        def run(self, plan):
            result = self._inner.run(plan)
            for e in result.effects:
                if e["kind"] == "snapshot":
                    e["payload"]["rows"] = [row for row in e["payload"]["rows"] if row["order_id"] != "o-2"]
            return result

    with DifferentialRunner(load_scenario(FIXED), wrap_platform=DropsARow) as runner:
        outcome = runner.run(seed="differential")
        again = runner.run(seed="differential")
    assert not outcome.agree
    [difference] = outcome.differences
    assert [] == difference["proxiedOnly"]
    assert ["o-2"] == [row.split('"order_id":"')[1].split('"')[0] for row in difference["rawOnly"]]
    assert outcome.differences == again.differences


ALWAYS_THROWS = """
export default {
  async queue(batch, env) {
    for (const message of batch.messages) {
      await env.DB.prepare("INSERT INTO tries (message_id, attempt) VALUES (?, ?)").bind(message.id, message.attempts).run();
      throw new Error("always fails");
    }
  },
};
"""


def test_a_scenario_without_max_redeliveries_agrees(toolchain, tmp_path):
    from eutaxy.cloudflare import d1_schema

    config = (
        '{"name": "t", "main": "./worker.js", "compatibility_date": "2026-01-01", "compatibility_flags": ["nodejs_compat"],'
        ' "d1_databases": [{"binding": "DB", "database_name": "t", "database_id": "t"}],'
        ' "queues": {"consumers": [{"queue": "jobs"}]}}'
    )
    schema = "CREATE TABLE tries (message_id TEXT NOT NULL, attempt INTEGER NOT NULL);\n"
    write_project(tmp_path, config, {"worker.js": ALWAYS_THROWS, "schema.sql": schema})
    scenario = scenario_in(
        tmp_path, "no-bound",
        worker={"entry": "./worker.js", "config": "./wrangler.jsonc"},
        setup=[d1_schema("DB", "./schema.sql")], drive=queue("jobs", [{"body": {}}]),
    )
    assert [] == [difference["message"] for difference in run_differential(scenario)]
