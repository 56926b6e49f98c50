"""Events at a virtual time (``at_ms``) on real workerd.

A request or message with ``at_ms`` is sent that many virtual milliseconds after the run's
start: events go in order of time, then of listing, and an expiry due before an event's time
has happened when it runs. The corpus case kv-idempotency-expiry is the planted bug and its fix:
idempotency keys remembered in KV for an hour, and a charge resent an hour later.
"""

from pathlib import Path

import pytest

from eutaxy.cloudflare import check, create_platform, define_scenario, http, kv_namespace, kv_rows, every_row, queue
from eutaxy.core.effects import VIRTUAL_EPOCH_MS
from eutaxy.core.errors import UserError
from eutaxy.engine.check import replay_scenario

pytestmark = pytest.mark.usefixtures("toolchain")

HERE = Path(__file__).resolve().parent
EXPIRY = HERE.parents[2] / "corpus" / "planted-bugs" / "kv-idempotency-expiry"
KV = HERE / "kv"
HOUR_MS = 3_600_000


def test_a_kv_expiry_bug_is_violated_with_a_request_an_hour_later():
    """The idempotency key put with expirationTtl 3600 is gone at at_ms 3,600,000: the resend charges again."""
    verdict = check(EXPIRY / "kv-idempotency-expiry.sim.py", max_runs=20, budget_ms=600_000)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "one-charge-per-order" == verdict["violation"]["invariant"]
    # No fault is needed: time alone breaks it. The shrunk run drops the other customer's charge
    # (at 1 s) and keeps both of o-1's, the resend at its own time.
    assert [] == verdict["schedule"]["faults"]
    assert ["req-1", "req-3"] == verdict["keptEvents"]
    puts = [e for e in verdict["trace"] if e["target"] == "KV:LEDGER" and e["op"] == "put" and e["kind"] == "result"]
    assert [VIRTUAL_EPOCH_MS, VIRTUAL_EPOCH_MS + HOUR_MS] == [e["time"] // 1000 * 1000 for e in puts]


def test_the_fixed_charge_handler_is_bounded():
    verdict = check(EXPIRY / "fixed" / "kv-idempotency-expiry-fixed.sim.py", max_runs=20, budget_ms=600_000)
    assert "bounded" == verdict["kind"], verdict.get("violation")


def _charges(at_ms):
    charge = {"method": "POST", "path": "/charges", "headers": {"Idempotency-Key": "k-1"}, "body": {"order": "o-1", "cents": 500}}
    return define_scenario(
        name="kv-charges",
        root=EXPIRY,
        source=EXPIRY / "kv-idempotency-expiry.sim.py",
        worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
        setup=[kv_namespace("IDEMPOTENCY"), kv_namespace("LEDGER")],
        drive=http([charge, charge if at_ms is None else {**charge, "at_ms": at_ms}]),
        invariants=[every_row("ledger", kv_rows("LEDGER"), [], allow_vacuous=True)],
        bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 0, "budgetMs": 60_000},
    )


@pytest.mark.parametrize(("at_ms", "charges"), [(None, 1), (HOUR_MS - 1000, 1), (HOUR_MS, 2)])
def test_the_key_is_remembered_until_its_hour_is_up(at_ms, charges):
    """Without at_ms the resend is sent at once; a second before the hour the key is still there."""
    scenario = _charges(at_ms)
    with create_platform(scenario) as platform:
        result = replay_scenario(scenario, platform, {"faults": [], "turns": []}, seed="kv-charges")["result"]
    [snapshot] = [e for e in result["effects"] if e["kind"] == "snapshot" and e["target"] == "KV:LEDGER"]
    assert charges == len(snapshot["payload"]["rows"])
    [resend] = [e for e in result["effects"] if e["invocation"] == "req-2#1" and e["kind"] == "result" and e["op"] == "response"]
    if at_ms is not None:
        assert VIRTUAL_EPOCH_MS + at_ms <= resend["time"] < VIRTUAL_EPOCH_MS + at_ms + 100


def _ops(messages, batch_size=1):
    return define_scenario(
        name="kv-ops",
        root=KV,
        source=KV / "ops.sim.py",
        worker={"entry": "./ops.ts", "config": "./wrangler.jsonc"},
        drive=queue("ops", messages, batch_size=batch_size),
        invariants=[every_row("keys", kv_rows("KV"), [], allow_vacuous=True)],
        bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )


#: Listed out of time order: c (at 5 s), a (at 0), b (no time: at the start), d (at 5 s).
LISTED_OUT_OF_TIME = [
    {"id": "c", "body": {"do": "list"}, "at_ms": 5000},
    {"id": "a", "body": {"do": "list"}, "at_ms": 0},
    {"id": "b", "body": {"do": "list"}},
    {"id": "d", "body": {"do": "list"}, "at_ms": 5000},
]


def test_messages_go_in_order_of_time_then_of_listing():
    """Listed c (at 5 s), a (at 0), b (no time: at the start), d (at 5 s): delivered a, b at the start, then c, d at 5 s."""
    scenario = _ops(LISTED_OUT_OF_TIME)
    assert [5000, 0, None, 5000] == [event.get("atMs") for event in scenario["drive"]["events"]]
    with create_platform(scenario) as platform:
        result = replay_scenario(scenario, platform, {"faults": [], "turns": []}, seed="kv-ops")["result"]
    starts = {}
    for effect in result["effects"]:
        starts.setdefault(effect["invocation"], effect["time"])
    invocations = [invocation for invocation in starts if invocation != "-"]
    assert ["a#1", "b#1", "c#1", "d#1"] == [i for i in invocations if "#" in i]
    assert starts["c#1"] >= VIRTUAL_EPOCH_MS + 5000 and starts["b#1"] < VIRTUAL_EPOCH_MS + 5000


def test_a_batch_forms_from_the_messages_sent_by_the_time_it_starts():
    """At the consumer's default size (10): a and b (due at the start) are one batch, c and d (at 5 s) another."""
    scenario = _ops(LISTED_OUT_OF_TIME, batch_size=None)
    with create_platform(scenario) as platform:
        result = replay_scenario(scenario, platform, {"faults": [], "turns": []}, seed="kv-ops")["result"]
    acks = [(e["invocation"], e["payload"]["args"]["messageId"]) for e in result["effects"] if e["op"] == "ack" and e["kind"] == "result"]
    assert [("a#1", "a"), ("a#1", "b"), ("c#1", "c"), ("c#1", "d")] == acks


@pytest.mark.parametrize("bad", [-1, 1.5, "3600000", True, 2**60])
def test_an_at_ms_that_is_no_virtual_time_is_refused(bad):
    with pytest.raises(UserError, match=r"at_ms must be a whole number of virtual milliseconds"):
        queue("ops", [{"body": {}, "at_ms": bad}])
    with pytest.raises(UserError, match=r"at_ms must be a whole number of virtual milliseconds"):
        http([{"path": "/", "at_ms": bad}])


def test_a_drive_without_at_ms_has_no_time_field():
    """The plan and the JSON gain the field only when it is set."""
    assert {"id": "msg-1", "body": 1} == queue("ops", [{"body": 1}])["events"][0]
    assert "atMs" not in http([{"path": "/"}])["events"][0]
    assert 7 == queue("ops", [{"body": 1, "at_ms": 7}])["events"][0]["atMs"]
