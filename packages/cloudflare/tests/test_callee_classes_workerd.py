"""A callee Worker's Durable Object and Workflow classes run for real, under qualified aliases.

A shop Worker calls a stock Worker through a service binding (``callee``), and binds the stock
Worker's ``Counter`` class itself (``script_name: "stock"``). The bundle exports each of the
stock Worker's classes under its alias (``stock.Counter``), wrapped with the stock Worker's env;
the stock Worker's own bindings are qualified (``stock/LEDGER``, ``stock/FLOW``), and its
``COUNTER`` is an alias of the shop's, the one namespace both reach. Its Workflow class runs on
the engine's model with the stock Worker's env, and its objects' alarms fire in virtual time
seeing that env too. Config mistakes name the callee's config.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from eutaxy.cloudflare import callee, d1_schema, define_scenario, durable_object, http, load_scenario, workflow
from eutaxy.cloudflare.draft import draft_worker, write_draft
from eutaxy.cloudflare.worker import prepare_worker
from eutaxy.core.errors import UserError

from worker_project import logged_lines, replay, worker_config, write_files, write_shop

pytestmark = pytest.mark.usefixtures("toolchain")

SHOP = """
export default {
  async fetch(request, env) {
    const { op, sku } = await request.json();
    const seen = { callerSeesCalleeNames: Object.keys(env).filter((name) => name.startsWith("stock/")) };
    if (op === "count") seen.answer = await env.COUNTER.getByName(sku).bump("shop");
    if (op === "take") seen.answer = await env.STOCK.take(sku);
    await env.DB.prepare("INSERT INTO log (line) VALUES (?)").bind(JSON.stringify(seen)).run();
    return Response.json(seen);
  },
};
"""

STOCK = """
import { DurableObject, WorkerEntrypoint, WorkflowEntrypoint } from "cloudflare:workers";
export class Counter extends DurableObject {
  async bump(who) {
    const n = ((await this.ctx.storage.get("n")) ?? 0) + 1;
    await this.ctx.storage.put("n", n);
    const row = await this.env.DB.prepare("SELECT qty FROM stock WHERE sku = ?").bind("widget").first();
    return { n, who, region: this.env.REGION, qty: row.qty, env: Object.keys(this.env).sort() };
  }
}
export class Ledger extends DurableObject {
  async note(line) {
    const lines = (await this.ctx.storage.get("lines")) ?? [];
    lines.push(line);
    await this.ctx.storage.put("lines", lines);
    await this.ctx.storage.setAlarm(Date.now() + 1000);
    return lines.length;
  }
  async alarm() {
    // Its alarm, delivered in virtual time, sees the stock Worker's env too.
    const row = await this.env.DB.prepare("SELECT qty FROM stock WHERE sku = ?").bind("widget").first();
    await this.ctx.storage.put("audit", { region: this.env.REGION, qty: row.qty });
  }
}
export class Restock extends WorkflowEntrypoint {
  async run(event, step) {
    return await step.do("restock", async () => {
      await this.env.DB.prepare("UPDATE stock SET qty = qty + ? WHERE sku = ?").bind(event.payload.n, event.payload.sku).run();
      return { region: this.env.REGION };
    });
  }
}
export class Stock extends WorkerEntrypoint {
  async take(sku) {
    await this.env.DB.prepare("UPDATE stock SET qty = qty - 1 WHERE sku = ?").bind(sku).run();
    const counted = await this.env.COUNTER.getByName(sku).bump("stock");
    const noted = await this.env.LEDGER.getByName("main").note("took " + sku);
    const instance = await this.env.FLOW.create({ id: "restock-" + sku, params: { sku, n: 2 } });
    return { counted, noted, instance: instance.id };
  }
}
export default { async fetch() { return new Response("rpc only", { status: 404 }); } };
"""


STOCK_CONFIG = {
    "vars": {"REGION": "eu"},
    "d1_databases": [{"binding": "DB", "database_name": "stock", "database_id": "stock-db"}],
    "durable_objects": {"bindings": [{"name": "COUNTER", "class_name": "Counter"}, {"name": "LEDGER", "class_name": "Ledger"}]},
    "migrations": [{"tag": "v1", "new_sqlite_classes": ["Counter", "Ledger"]}],
    "workflows": [{"binding": "FLOW", "name": "restock", "class_name": "Restock"}],
}


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("callee-classes")
    # The stock Worker's class, bound by the shop too: one namespace, under the shop's name.
    write_shop(root, SHOP, durable_objects={"bindings": [{"name": "COUNTER", "class_name": "Counter", "script_name": "stock"}]})
    write_files(root / "stock", {
        "worker.js": STOCK,
        "schema.sql": "CREATE TABLE stock (sku TEXT PRIMARY KEY, qty INTEGER NOT NULL); INSERT INTO stock VALUES ('widget', 5);",
        "wrangler.jsonc": worker_config("stock", **STOCK_CONFIG),
    })
    return root


def _scenario(project: Path, ops: list[str], config: str = "./stock/wrangler.jsonc") -> dict:
    return define_scenario(
        name="callee-classes",
        root=project,
        worker={"entry": "./shop/worker.js", "config": "./shop/wrangler.jsonc"},
        setup=[
            callee("STOCK", config=config),
            d1_schema("DB", "./shop/schema.sql"),
            d1_schema("stock/DB", "./stock/schema.sql"),
            durable_object("COUNTER"),
            durable_object("stock/LEDGER"),
            workflow("stock/FLOW"),
        ],
        drive=http([{"method": "POST", "path": "/", "body": {"op": op, "sku": "widget"}} for op in ops]),
        invariants=[],
        bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )


def _snapshot(result: dict, target: str) -> dict[str, list]:
    return {e["op"]: e["payload"]["rows"] for e in result["effects"] if e["target"] == target and e["kind"] == "snapshot"}


def test_the_callees_classes_run_with_its_env_and_a_class_both_bind_is_one_namespace(project):
    result = replay(_scenario(project, ["count", "take"]))
    # The snapshot's rows are sorted: the take's line ({"answer":{"counted":...) comes first.
    take, count = logged_lines(result)
    own_env = ["COUNTER", "DB", "FLOW", "LEDGER", "REGION"]
    # The shop's call and the stock Worker's reach one object: the stock Worker's class, its env the stock Worker's.
    assert {"callerSeesCalleeNames": [], "answer": {"n": 1, "who": "shop", "region": "eu", "qty": 5, "env": own_env}} == count
    assert {"counted": {"n": 2, "who": "stock", "region": "eu", "qty": 4, "env": own_env}, "noted": 1, "instance": "restock-widget"} == take["answer"]
    calls = [(e["invocation"], e["target"], e["op"]) for e in result["effects"] if e["kind"] == "call"]
    assert ("req-1#1", "DO:COUNTER", "bump") in calls
    # The stock Worker's COUNTER is the shop's (an alias); its LEDGER and FLOW are its own, qualified.
    assert ("req-2#1/STOCK.take", "DO:COUNTER", "bump") in calls
    assert ("req-2#1/STOCK.take", "DO:stock/LEDGER", "note") in calls
    assert ("req-2#1/STOCK.take", "Workflow:stock/FLOW", "create") in calls
    # The object's own D1 reads are the stock Worker's database, the invocation hosting the call's.
    assert ("req-2#1/STOCK.take", "D1:stock/DB", "first") in calls
    # The Workflow instance ran the stock Worker's class with its env: the restock committed.
    assert [{"sku": "widget", "qty": 6}] == _snapshot(result, "D1:stock/DB")["stock"]
    [instance] = _snapshot(result, "Workflow:stock/FLOW")["instances"]
    assert ("restock-widget", "complete", {"region": "eu"}) == (instance["id"], instance["status"], instance["output"])
    assert [{"key": "n", "value": 2}] == _snapshot(result, "DO:COUNTER")["widget"]
    # The alarm ran after the restock committed (the take's invocation and the instance first).
    audit = {"key": "audit", "value": {"region": "eu", "qty": 6}}
    assert [audit, {"key": "lines", "value": ["took widget"]}] == _snapshot(result, "DO:stock/LEDGER")["main"]
    assert ("DO:stock/LEDGER/main/alarm.1#1", "DO:stock/LEDGER", "alarm") in [(e["invocation"], e["target"], e["op"]) for e in result["effects"]]


def test_a_fault_inside_the_callees_object_call_is_by_its_position(project):
    # The stock Worker's call into its ledger ambiguous: the object ran it, the call threw.
    clean = replay(_scenario(project, ["take"]))
    [ordinal] = [e["ordinal"] for e in clean["effects"] if e["kind"] == "call" and e["target"] == "DO:stock/LEDGER" and e["op"] == "note"]
    result = replay(_scenario(project, ["take"]), [{"invocation": "req-1#1/STOCK.take", "ordinal": ordinal, "fault": "ambiguous"}])
    # Its alarm still fires; no restock was created, as the take threw before it.
    audit = {"key": "audit", "value": {"region": "eu", "qty": 4}}
    assert [audit, {"key": "lines", "value": ["took widget"]}] == _snapshot(result, "DO:stock/LEDGER")["main"]
    hosted = {i["invocation"]: i["outcome"] for i in result["invocations"]}
    assert "threw" == hosted["req-1#1/STOCK.take"]


def test_the_load_message_names_the_classes_by_alias(project):
    spec = prepare_worker(_scenario(project, ["take"]))
    objects = spec.load.kinds["durable_object"]
    assert {"COUNTER": {"className": "stock.Counter", "useSQLite": True}, "stock/LEDGER": {"className": "stock.Ledger", "useSQLite": True}} == (
        objects["miniflare"]["durableObjects"])
    assert ["stock.Counter", "stock.Ledger"] == objects["classes"]
    assert {"className": "stock.Restock", "workflowName": "restock"} == spec.load.kinds["workflow"]["bindings"]["stock/FLOW"]["settings"]
    [stock] = spec.load.callees
    assert {"stock.Counter": "Counter", "stock.Ledger": "Ledger", "stock.Restock": "Restock"} == dict(stock.classes)
    assert {"DB": "stock/DB", "COUNTER": "COUNTER", "LEDGER": "stock/LEDGER", "FLOW": "stock/FLOW", "REGION": "stock/REGION"} == dict(stock.env)
    # The raw side's stock Worker binds its own names to the isolate's classes (host/miniflare.mjs adds the script).
    assert {"COUNTER": "stock.Counter", "LEDGER": "stock.Ledger"} == stock.to_data()["miniflare"]["durableObjects"]
    assert any("stock/COUNTER is COUNTER" in sentence for sentence in spec.assumptions)


def test_a_callees_class_in_no_migration_is_refused_at_itsworker_config(project, tmp_path):
    bad = dict(STOCK_CONFIG, migrations=[{"tag": "v1", "new_sqlite_classes": ["Counter"]}])
    (project / "stock" / "unmigrated.jsonc").write_text(worker_config("stock", **bad))
    with pytest.raises(UserError, match=r"unmigrated.jsonc.*'Ledger' \(binding 'LEDGER'\) is in no migration"):
        prepare_worker(_scenario(project, ["take"], config="./stock/unmigrated.jsonc"))


def test_a_callees_class_its_entry_does_not_export_is_refused_at_itsworker_config(project):
    (project / "stock" / "without.js").write_text(STOCK.replace("export class Ledger", "class Ledger"))
    (project / "stock" / "without.jsonc").write_text(json.dumps({**json.loads(worker_config("stock", **STOCK_CONFIG)), "main": "./without.js"}))
    words = r"without.jsonc:\d+: durable_objects binding 'LEDGER' names class 'Ledger', which the Worker's entry without.js does not export"
    with pytest.raises(UserError, match=words):
        replay(_scenario(project, ["take"], config="./stock/without.jsonc"))


def test_the_draft_sets_up_the_callees_classes_and_the_callers_binding_of_one(project):
    draft = draft_worker(project / "shop" / "wrangler.jsonc")
    steps = [(step["kind"], step["binding"]) for step in draft.setup]
    assert ("callee", "STOCK") in steps
    for line in ['durable_object("COUNTER"),', 'durable_object("stock/LEDGER"),', 'workflow("stock/FLOW"),', 'd1_schema("stock/DB", "../stock/schema.sql"),']:
        assert line in draft.source
    # The stock Worker's COUNTER is the shop's binding of the same class: set up once, by the shop's name.
    assert 'durable_object("stock/COUNTER")' not in draft.source
    assert not [note.text for note in draft.notes if "belongs to another Worker" in note.text]
    path = write_draft(draft)
    source = re.sub(r'todo\("events", "[^"]*"\)', '[{"method": "POST", "path": "/", "body": {"op": "take", "sku": "widget"}}]', draft.source)
    path.write_text(re.sub(r'todo\("invariants", "[^"]*"\),', "", source))
    spec = prepare_worker(load_scenario(path))
    assert {"COUNTER", "stock/LEDGER"} == {name for name, entry in spec.load.kinds["durable_object"]["bindings"].items() if entry["setup"]}


def test_a_callee_binding_the_callers_class_reaches_the_callers_namespace(tmp_path):
    tally = 'if (op === "tally") seen.answer = await env.TALLY.getByName(sku).add(1);\n    if (op === "count")'
    write_shop(tmp_path, SHOP.replace('if (op === "count")', tally) + """
import { DurableObject } from "cloudflare:workers";
export class Tally extends DurableObject {
  async add(n) { const total = ((await this.ctx.storage.get("total")) ?? 0) + n; await this.ctx.storage.put("total", total); return total; }
}
""", durable_objects={"bindings": [{"name": "TALLY", "class_name": "Tally"}]}, migrations=[{"tag": "v1", "new_sqlite_classes": ["Tally"]}])
    write_files(tmp_path / "stock", {
        "worker.js": """
import { WorkerEntrypoint } from "cloudflare:workers";
export class Stock extends WorkerEntrypoint {
  async take(sku) { return this.env.SHOP_TALLY.getByName(sku).add(10); }
}
export default {};
""",
        "wrangler.jsonc": worker_config("stock", durable_objects={"bindings": [{"name": "SHOP_TALLY", "class_name": "Tally", "script_name": "shop"}]}),
    })
    scenario = define_scenario(
        name="caller-class", root=tmp_path, worker={"entry": "./shop/worker.js", "config": "./shop/wrangler.jsonc"},
        setup=[callee("STOCK", config="./stock/wrangler.jsonc"), d1_schema("DB", "./shop/schema.sql"), durable_object("TALLY")],
        drive=http([{"method": "POST", "path": "/", "body": {"op": op, "sku": "widget"}} for op in ["tally", "take"]]),
        invariants=[], bounds={"maxFaultsPerRun": 0, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )
    [stock] = prepare_worker(scenario).load.callees
    assert ({"SHOP_TALLY": "TALLY"}, {}) == (dict(stock.env), dict(stock.classes))
    result = replay(scenario)
    assert [{"key": "total", "value": 11}] == _snapshot(result, "DO:TALLY")["widget"]
    assert ("req-2#1/STOCK.take", "DO:TALLY", "add") in [(e["invocation"], e["target"], e["op"]) for e in result["effects"] if e["kind"] == "call"]
