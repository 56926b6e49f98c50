"""Queue producers: the config and load message that carry them, their selectors, and checks
of small Workers on workerd that produce onto their own queue and onto another one."""

from pathlib import Path

import pytest

from eutaxy.cloudflare import (
    at_least_once_per_message,
    create_platform,
    d1_param,
    d1_schema,
    d1_write,
    define_scenario,
    http,
    queue_rows,
    queue_send,
    unique,
)
from eutaxy.cloudflare.bindings.queue_producer import QUEUE_PRODUCER, producers
from eutaxy.cloudflare.worker import prepare_worker
from eutaxy.cloudflare.wrangler import read_config
from eutaxy.core.effects import Effect
from eutaxy.core.errors import UserError
from eutaxy.core.selectors import matches
from eutaxy.engine.check import check_scenario, replay_scenario

WORKER = """
interface Env { DB: D1Database; JOBS: Queue; RECEIPTS: Queue }
type Order = { orderId: string; amountCents: number };

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const order = await request.json<Order>();
    try {
      await env.JOBS.send(order);
    } catch {
      return new Response("not queued", { status: 503 });
    }
    return new Response("accepted", { status: 202 });
  },
  async queue(batch: MessageBatch<Order>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      await env.DB.prepare("INSERT INTO orders (order_id) VALUES (?) ON CONFLICT(order_id) DO NOTHING").bind(message.body.orderId).run();
      // A receipt per delivery, not per order: a redelivery sends a second one.
      await env.RECEIPTS.send({ orderId: message.body.orderId });
      message.ack();
    }
  },
};
"""

CONFIG = """{
  "name": "producer", "main": "./worker.ts", "compatibility_date": "2026-01-01",
  "d1_databases": [{"binding": "DB", "database_id": "orders"}],
  "queues": {
    "producers": [
      {"binding": "JOBS", "queue": "jobs", "delivery_delay": %(delay)d},
      {"binding": "RECEIPTS", "queue": "receipts"}
    ],
    "consumers": [{"queue": "jobs", "max_retries": 2}]
  }
}"""

ORDERS = [{"method": "POST", "path": "/orders", "body": {"orderId": "o-1", "amountCents": 100}}]


def _project(tmp_path: Path, delay: int = 0) -> Path:
    (tmp_path / "worker.ts").write_text(WORKER)
    (tmp_path / "wrangler.jsonc").write_text(CONFIG % {"delay": delay})
    (tmp_path / "schema.sql").write_text("CREATE TABLE orders (order_id TEXT PRIMARY KEY);\n")
    return tmp_path


def _scenario(root: Path, invariants, retries: int = 2, **bounds):
    drive = http(ORDERS, retries=retries)
    return define_scenario(
        name="producer",
        setup=[d1_schema("DB", "./schema.sql")],
        drive=drive,
        invariants=invariants(drive),
        bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 2, "budgetMs": 60_000, **bounds},
        root=root,
        source=root / "producer.sim.py",
    )


def _recorded(drive):
    return [at_least_once_per_message("every-order-recorded", drive, d1_write("DB"), d1_param(0), "orderId")]


def _one_receipt(_drive):
    return [unique("one-receipt-per-order", queue_rows("receipts"), "body.orderId")]


# --- the config, the load message, the selectors -------------------------------------------


def test_the_config_gives_each_producer_its_queue_and_delivery_delay(tmp_path):
    config = read_config(_project(tmp_path, delay=30) / "wrangler.jsonc")
    assert [("JOBS", "jobs"), ("RECEIPTS", "receipts")] == producers(config)
    assert [30, 0] == [QUEUE_PRODUCER.binding_settings(binding)["deliveryDelaySeconds"] for binding in config.bindings if binding.kind == "queue_producer"]
    (tmp_path / "wrangler.jsonc").write_text(CONFIG % {"delay": 43_201})
    with pytest.raises(UserError, match=r"delivery_delay in queues.producers\[0\] must be between 0 and 43200"):
        read_config(tmp_path / "wrangler.jsonc")


def test_the_load_message_carries_the_producers_and_traps_none_of_them(tmp_path):
    root = _project(tmp_path, delay=5)
    worker = prepare_worker(_scenario(root, _recorded)).load_message()["worker"]
    assert {
        "JOBS": {"queue": "jobs", "deliveryDelaySeconds": 5},
        "RECEIPTS": {"queue": "receipts", "deliveryDelaySeconds": 0},
    } == {name: binding["settings"] for name, binding in worker["kinds"]["queue_producer"]["bindings"].items()}
    assert [] == worker["bindings"]


def test_queue_send_selects_the_sends_and_queue_rows_reads_a_produced_only_queue():
    assert {"target": "Queue:jobs", "op": ["send", "sendBatch"], "kind": "result"} == queue_send("jobs")
    sent = Effect("Queue:jobs", "sendBatch", "result", {"args": {"messages": []}, "result": {"messageIds": []}}, "req-1#1", 0, 0)
    assert matches(queue_send("jobs"), sent)
    assert not matches(queue_send("jobs", "send"), sent)
    assert {"kind": "rows", "target": "Queue:receipts", "table": "messages", "where": []} == queue_rows("receipts")


def test_rows_of_a_queue_the_worker_consumes_are_refused(tmp_path):
    """A message onto a consumed queue is delivered, not kept: an invariant over its rows would hold vacuously."""
    root = _project(tmp_path)
    scenario = _scenario(root, lambda _d: [unique("one-job", queue_rows("jobs"), "body.orderId")])
    with pytest.raises(UserError, match="the Worker consumes that queue"):
        prepare_worker(scenario)


# --- on workerd ------------------------------------------------------------------------------


def test_produce_then_consume_is_checked_end_to_end(toolchain, tmp_path):
    """Every order is recorded by the consumer of the message its request produced: BOUNDED."""
    scenario = _scenario(_project(tmp_path), _recorded)
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, seed="producer", max_runs=40, budget_ms=300_000)
    assert "bounded" == verdict["kind"], verdict.get("violation") or verdict.get("cause")
    targets = {(point["target"], point["op"]) for point in verdict["coverage"]["points"]}
    assert {("Queue:jobs", "send"), ("Queue:receipts", "send"), ("D1:DB", "run"), ("Queue:jobs", "ack")} <= targets


def test_a_redelivered_produced_message_breaks_a_state_invariant_on_another_queue(toolchain, tmp_path):
    """A fault in the consumer after its receipt (a crash at the ack) redelivers the produced message,
    which sends a second receipt: VIOLATED on the receipts queue's rows, shrunk to that one fault in
    the produced message's invocation (the caller never resends, so no other fault can do it)."""
    scenario = _scenario(_project(tmp_path), _one_receipt, retries=0)
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, seed="producer", max_runs=60, budget_ms=300_000)
    assert "violated" == verdict["kind"], verdict.get("cause")
    assert "one-receipt-per-order" == verdict["violation"]["invariant"]
    (fault,) = verdict["schedule"]["faults"]
    assert fault["invocation"].startswith("req-1#1/sent-1#"), fault


def test_a_delivery_delay_passes_in_virtual_time(toolchain, tmp_path):
    """The producer's delivery_delay: the message is delivered that long after it was sent."""
    scenario = _scenario(_project(tmp_path, delay=30), _recorded)
    with create_platform(scenario) as platform:
        result = replay_scenario(scenario, platform, {"faults": [], "turns": []}, seed="producer")["result"]
    assert {"kind": "completed"} == result["end"]
    sent = next(e for e in result["effects"] if e["target"] == "Queue:jobs" and e["op"] == "send")
    delivered = next(e for e in result["effects"] if e["invocation"] == "req-1#1/sent-1#1")
    assert sent["time"] + 30_000 == delivered["time"]
    receipts = next(e for e in result["effects"] if e["kind"] == "snapshot" and e["target"] == "Queue:receipts")
    assert [{"messageId": "req-1#1/sent-1#1/sent-1", "body": {"orderId": "o-1"}, "delaySeconds": 0}] == receipts["payload"]["rows"]


def test_exhaustive_exploration_runs_every_schedule_of_produced_events(toolchain, tmp_path):
    """The produced message's ids are fixed by what its producer did, so every enumerated schedule replays."""
    scenario = _scenario(_project(tmp_path), _recorded)
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, seed="producer", exhaustive=True, max_runs=400, budget_ms=300_000)
    assert "bounded" == verdict["kind"], verdict.get("violation") or verdict.get("cause")
    assert verdict["exhaustive"]["completed"], verdict["exhaustive"]


def test_more_produced_messages_than_the_bound_is_unsupported(toolchain, tmp_path):
    """Two messages (the job and its receipt) with producedMessagesMax 1: UNSUPPORTED, never dropped."""
    scenario = _scenario(_project(tmp_path), _recorded, producedMessagesMax=1)
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, seed="producer", max_runs=5, budget_ms=300_000)
    assert "unsupported" == verdict["kind"]
    assert "produced_message_limit" == verdict["cause"]["kind"], verdict["cause"]
