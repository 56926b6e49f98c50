"""Callee Workers run for real: ``callee(binding, config=...)`` on real workerd.

A shop Worker calls a stock Worker (and the stock Worker a pricing Worker) through service
bindings; the callees run in the shop's isolate with their own bindings under qualified names
(``stock/DB``). Each call is one ``Service:<binding>`` effect of the caller hosting the callee's
invocation (``<caller>/<binding>.<method>``), whose effects are its own and take faults by their
position in it; what the callee throws reaches the caller as RPC carries it, a crash inside it
is an error thrown from the call. A resource both configs name is one, under the caller's name.
Config mistakes (a binding that is no service binding, a name that is not the service's, a
cycle, a TOML config) are the user's, named.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eutaxy.cloudflare import callee, create_platform, d1_rows, d1_schema, define_scenario, every_row, http, service, service_error, unique
from eutaxy.cloudflare.worker import prepare_worker
from eutaxy.core.errors import UserError
from eutaxy.engine.check import check_scenario, replay_scenario

from worker_project import logged_lines, replay, worker_config, write_files, write_shop

pytestmark = pytest.mark.usefixtures("toolchain")

SHOP = """
export default {
  async fetch(request, env) {
    const { op, sku } = await request.json();
    const seen = { callerSeesCalleeDb: "stock/DB" in env, vars: env.LABEL };
    try {
      if (op === "take") seen.answer = await env.STOCK.take(sku, 1);
      if (op === "twice") seen.answer = [await env.STOCK.take(sku, 1), await env.STOCK.take(sku, 1)];
      if (op === "boom") seen.answer = await env.STOCK.boom(sku);
      if (op === "slow") seen.answer = await env.STOCK.takeSlowly(sku, 1);
      if (op === "shelf") { const shelf = await env.STOCK.shelf(sku); seen.answer = [await shelf.take(2), await shelf.level()]; }
      if (op === "fetch") { const r = await env.STOCK.fetch("https://stock/level?sku=" + sku); seen.answer = [r.status, await r.text()]; }
    } catch (error) {
      seen.error = { name: error.name, message: error.message, code: error.code, remote: error.remote, isRange: error instanceof RangeError };
    }
    await env.DB.prepare("INSERT INTO log (line) VALUES (?)").bind(JSON.stringify(seen)).run();
    return Response.json(seen);
  },
};
"""

STOCK = """
import { RpcTarget, WorkerEntrypoint } from "cloudflare:workers";
class Shelf extends RpcTarget {
  constructor(db, sku) { super(); this.db = db; this.sku = sku; }
  async take(n) {
    await this.db.prepare("UPDATE stock SET qty = qty - ? WHERE sku = ?").bind(n, this.sku).run();
    return this.level();
  }
  async level() {
    return (await this.db.prepare("SELECT qty FROM stock WHERE sku = ?").bind(this.sku).first()).qty;
  }
}
export class Stock extends WorkerEntrypoint {
  async shelf(sku) { return new Shelf(this.env.DB, sku); }
  async take(sku, n) {
    await this.env.DB.prepare("UPDATE stock SET qty = qty - ? WHERE sku = ?").bind(n, sku).run();
    const row = await this.env.DB.prepare("SELECT qty FROM stock WHERE sku = ?").bind(sku).first();
    const price = await this.env.PRICING.quote(sku);
    await this.env.SHARED.prepare("INSERT INTO log (line) VALUES (?)").bind("stock took " + sku).run();
    return { qty: row.qty, price, region: this.env.REGION, caller: this.ctx.props.caller ?? null };
  }
  async takeSlowly(sku, n) {
    // A read, then a write of what was read: another call between them is a lost update.
    const row = await this.env.DB.prepare("SELECT qty FROM stock WHERE sku = ?").bind(sku).first();
    await this.env.DB.prepare("UPDATE stock SET qty = ? WHERE sku = ?").bind(row.qty - n, sku).run();
    return row.qty - n;
  }
  async boom(sku) {
    const error = new RangeError("no such sku " + sku);
    error.code = 404;
    throw error;
  }
  async fetch(request) {
    const sku = new URL(request.url).searchParams.get("sku");
    const row = await this.env.DB.prepare("SELECT qty FROM stock WHERE sku = ?").bind(sku).first();
    return new Response(String(row.qty), { status: 200 });
  }
}
export default { async fetch() { return new Response("rpc only", { status: 404 }); } };
"""

PRICING = """
import { WorkerEntrypoint } from "cloudflare:workers";
export default class extends WorkerEntrypoint {
  async quote(sku) { return sku === "widget" ? 250 : 100; }
}
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("callees")
    write_shop(root, SHOP, vars={"LABEL": "shop"})
    write_files(root / "stock", {
        "worker.js": STOCK,
        "schema.sql": "CREATE TABLE stock (sku TEXT PRIMARY KEY, qty INTEGER NOT NULL); INSERT INTO stock VALUES ('widget', 5);",
        "wrangler.jsonc": worker_config(
            "stock", vars={"REGION": "eu"},
            d1_databases=[
                {"binding": "DB", "database_name": "stock", "database_id": "stock-db"},
                # The shop's database: one resource, under the shop's name.
                {"binding": "SHARED", "database_name": "shop", "database_id": "shop-db"},
            ],
            services=[{"binding": "PRICING", "service": "pricing"}],
        ),
    })
    write_files(root / "pricing", {"worker.js": PRICING, "wrangler.jsonc": worker_config("pricing")})
    return root


def _scenario(project: Path, ops: list[str], **more) -> dict:
    return define_scenario(
        name="callees",
        root=project,
        worker={"entry": "./shop/worker.js", "config": "./shop/wrangler.jsonc"},
        setup=[
            callee("STOCK", config="./stock/wrangler.jsonc", props={"caller": "shop"}),
            callee("stock/PRICING", config="./pricing/wrangler.jsonc"),
            d1_schema("DB", "./shop/schema.sql"),
            d1_schema("stock/DB", "./stock/schema.sql"),
        ],
        drive=http([{"method": "POST", "path": "/", "body": {"op": op, "sku": "widget"}} for op in ops]),
        invariants=[unique("one-line", d1_rows("DB", "log"), "line", allow_vacuous=True)],
        bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
        **more,
    )


def test_a_call_hosts_the_callees_invocation_with_its_own_env_and_nested_callee(project):
    result = replay(_scenario(project, ["take"]))
    [seen] = logged_lines(result)
    # The caller's env holds none of the callee's names; the callee's env its own, the props the binding's.
    assert {"callerSeesCalleeDb": False, "vars": "shop", "answer": {"qty": 4, "price": 250, "region": "eu", "caller": "shop"}} == seen
    points = [(e["invocation"], e["target"], e["op"], e["ordinal"]) for e in result["effects"] if e["kind"] == "call"]
    assert [
        ("req-1#1", "Service:STOCK", "take", 0),
        ("req-1#1/STOCK.take", "D1:stock/DB", "run", 0),
        ("req-1#1/STOCK.take", "D1:stock/DB", "first", 1),
        ("req-1#1/STOCK.take", "Service:stock/PRICING", "quote", 2),
        # The alias: the callee's SHARED is the shop's DB, its effects carry the shop's name.
        ("req-1#1/STOCK.take", "D1:DB", "run", 3),
        ("req-1#1", "D1:DB", "run", 1),
        ("req-1#1", "Http:/", "response", 2),
    ] == points
    hosted = [(i["invocation"], i["drive"], i["outcome"]) for i in result["invocations"]]
    assert [
        ("req-1#1/STOCK.take/stock/PRICING.quote", "callee", "returned"),
        ("req-1#1/STOCK.take", "callee", "returned"),
        ("req-1#1", "http", "returned"),
    ] == hosted
    # Snapshots: the callee's database under its qualified name; the shared one once, the shop's.
    tables = sorted({(e["target"], e["op"]) for e in result["effects"] if e["kind"] == "snapshot"})
    assert [("D1:DB", "log"), ("D1:stock/DB", "stock")] == tables


def test_the_nth_call_of_a_method_is_numbered_and_a_fault_in_the_callee_is_by_its_position(project):
    # A crash at the second call's first statement: the callee's invocation ends, the call throws.
    result = replay(_scenario(project, ["twice"]), [{"invocation": "req-1#1/STOCK.take#2", "ordinal": 0, "fault": "crash_before"}])
    [seen] = logged_lines(result)
    assert "Error" == seen["error"]["name"] and "callee stock crashed in req-1#1/STOCK.take#2" in seen["error"]["message"]
    hosted = [(i["invocation"], i["outcome"]) for i in result["invocations"] if i["drive"] == "callee"]
    assert [("req-1#1/STOCK.take/stock/PRICING.quote", "returned"), ("req-1#1/STOCK.take", "returned"), ("req-1#1/STOCK.take#2", "crashed")] == hosted


def test_the_calls_own_faults_ambiguous_and_what_the_callee_throws(project):
    ambiguous = replay(_scenario(project, ["take"]), [{"invocation": "req-1#1", "ordinal": 0, "fault": "ambiguous"}])
    [seen] = logged_lines(ambiguous)
    assert seen["error"]["message"].startswith("Network connection lost.")
    # The callee ran: its stock was taken although the caller heard an error.
    stock = [e for e in ambiguous["effects"] if e["target"] == "D1:stock/DB" and e["kind"] == "snapshot"][0]["payload"]["rows"]
    assert [{"sku": "widget", "qty": 4}] == stock
    thrown = replay(_scenario(project, ["boom"]))
    [seen] = logged_lines(thrown)
    # As workerd carries it (the differential case callee-inventory-calls measures the rule): a
    # built-in class as itself, marked remote, without the own property (`code`) it was thrown with.
    assert {"name": "RangeError", "message": "no such sku widget", "remote": True, "isRange": True} == seen["error"]


def test_fetch_through_the_binding_reaches_the_callees_fetch(project):
    result = replay(_scenario(project, ["fetch"]))
    [seen] = logged_lines(result)
    assert [200, "5"] == seen["answer"]
    [answer] = [e for e in result["effects"] if e["target"] == "Service:STOCK" and e["kind"] == "result"]
    assert {"status": 200, "ok": True} == answer["payload"]["result"]


def test_the_callees_bindings_are_qualified_in_the_load_message(project):
    spec = prepare_worker(_scenario(project, ["take"]))
    d1 = spec.load.kinds["d1"]
    assert {"DB": "shop-db", "stock/DB": "stock-db"} == d1["miniflare"]["d1Databases"]
    [stock, pricing] = spec.load.callees
    assert ("STOCK", "stock", "Stock", {"caller": "shop"}) == (stock.binding, stock.name, stock.entrypoint, dict(stock.props))
    assert {"DB": "stock/DB", "SHARED": "DB", "PRICING": "stock/PRICING", "REGION": "stock/REGION"} == dict(stock.env)
    assert ("stock/PRICING", None) == (pricing.binding, pricing.entrypoint)
    # The Worker of its own the differential runner's raw side calls: its own names, the same databases.
    assert (None, {"d1Databases": {"DB": "stock-db", "SHARED": "shop-db"}}, {"REGION": "eu"}) == (
        stock.to_data()["owner"], stock.to_data()["miniflare"], stock.to_data()["vars"])
    assert ("stock", {}) == (pricing.to_data()["owner"], pricing.to_data()["miniflare"])
    assert "eu" == spec.load.vars["stock/REGION"]
    assert any(sentence.startswith("Callee Workers run for real") and "stock/SHARED is DB" in sentence for sentence in spec.assumptions)


@pytest.mark.parametrize(
    ("step", "words"),
    [
        (callee("CACHE", config="./stock/wrangler.jsonc"), "declares no service binding 'CACHE'"),
        (callee("STOCK", config="./pricing/wrangler.jsonc"), "names Worker 'stock', but ./pricing/wrangler.jsonc is Worker 'pricing'"),
        (callee("STOCK", config="./nowhere/wrangler.jsonc"), "does not exist"),
        (callee("pricing/X", config="./stock/wrangler.jsonc"), "no callee step runs a Worker named 'pricing'"),
    ],
)
def test_config_mistakes_are_named(project, step, words):
    scenario = define_scenario(
        name="callees", root=project, worker={"entry": "./shop/worker.js", "config": "./shop/wrangler.jsonc"},
        setup=[step], drive=http([{"method": "POST", "path": "/"}]), invariants=[],
    )
    with pytest.raises(UserError, match=words):
        prepare_worker(scenario)


def test_a_cycle_of_callees_is_refused_named(tmp_path):
    write_files(tmp_path / "a", {"worker.js": "export default {};", "wrangler.jsonc": worker_config("a", services=[{"binding": "B", "service": "b"}])})
    write_files(tmp_path / "b", {"worker.js": "export default {};", "wrangler.jsonc": worker_config("b", services=[{"binding": "A", "service": "a"}])})
    scenario = define_scenario(
        name="cycle", root=tmp_path, worker={"entry": "./a/worker.js", "config": "./a/wrangler.jsonc"},
        setup=[callee("B", config="./b/wrangler.jsonc"), callee("b/A", config="./a/wrangler.jsonc")],
        drive=http([{"method": "POST", "path": "/"}]), invariants=[],
    )
    with pytest.raises(UserError, match=r"a cycle of callees \(a -> b -> a\)"):
        prepare_worker(scenario)


def test_a_toml_callee_config_is_refused(project, tmp_path):
    (project / "stock" / "wrangler.toml").write_text('name = "stock"\nmain = "./worker.js"\ncompatibility_date = "2026-01-01"\n')
    scenario = define_scenario(
        name="callees", root=project, worker={"entry": "./shop/worker.js", "config": "./shop/wrangler.jsonc"},
        setup=[callee("STOCK", config="./stock/wrangler.toml")], drive=http([{"method": "POST", "path": "/"}]), invariants=[],
    )
    with pytest.raises(UserError, match="is TOML"):
        prepare_worker(scenario)


def test_concurrent_callee_invocations_interleave_at_their_effects(project):
    """Two orders in flight at once each call the stock Worker: the callees' invocations are
    turns like any other, so the lost update between one's read and its write is found."""
    scenario = _scenario(project, ["slow", "slow"])
    scenario["invariants"] = [
        every_row("stock-taken-twice", d1_rows("stock/DB", "stock"), [{"column": "qty", "op": "eq", "value": 3}]),
    ]
    scenario["bounds"]["maxConcurrentInvocations"] = 2
    scenario["bounds"]["maxFaultsPerRun"] = 0
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, seed="callees", max_runs=60, budget_ms=120_000)
        assert "violated" == verdict["kind"], verdict.get("cause")
        assert "stock-taken-twice" == verdict["violation"]["invariant"]
        result = replay_scenario(scenario, platform, verdict["schedule"], seed="callees")["result"]
    # Both callee invocations read the stock before either wrote it: the reads and writes interleave.
    statements = [(e["invocation"], e["op"]) for e in result["effects"] if e["target"] == "D1:stock/DB" and e["kind"] == "call"]
    assert statements.index(("req-2#1/STOCK.takeSlowly", "first")) < statements.index(("req-1#1/STOCK.takeSlowly", "run")), statements
    assert statements.index(("req-1#1/STOCK.takeSlowly", "first")) < statements.index(("req-2#1/STOCK.takeSlowly", "run")), statements


def test_an_rpc_target_returned_is_a_stub_whose_calls_are_calls_of_the_binding(project):
    """The Shelf the stock Worker returns crosses as a stub: each of its method calls is one
    Service:STOCK effect hosting an invocation of the stock Worker's, whose D1 effects are its own."""
    result = replay(_scenario(project, ["shelf"]))
    [seen] = logged_lines(result)
    assert [3, 3] == seen["answer"]
    calls = [(e["invocation"], e["target"], e["op"], e["payload"]["args"]) for e in result["effects"] if e["kind"] == "call" and e["target"] != "Http:/"]
    assert [
        ("req-1#1", "Service:STOCK", "shelf", {"args": ["widget"]}),
        ("req-1#1", "Service:STOCK", "take", {"args": [2], "stub": "req-1#1/STOCK.shelf"}),
        ("req-1#1/STOCK.take", "D1:stock/DB", "run", {"sql": "UPDATE stock SET qty = qty - ? WHERE sku = ?", "params": [2, "widget"]}),
        ("req-1#1/STOCK.take", "D1:stock/DB", "first", {"sql": "SELECT qty FROM stock WHERE sku = ?", "params": ["widget"]}),
        ("req-1#1", "Service:STOCK", "level", {"args": [], "stub": "req-1#1/STOCK.shelf"}),
        ("req-1#1/STOCK.level", "D1:stock/DB", "first", {"sql": "SELECT qty FROM stock WHERE sku = ?", "params": ["widget"]}),
        ("req-1#1", "D1:DB", "run", calls[-1][3]),
    ] == calls
    [returned] = [e for e in result["effects"] if e["op"] == "shelf" and e["kind"] == "result"]
    assert {"stub": True} == returned["payload"]["result"]
    # A stub call takes the call's faults: the answer to take() lost after the stock was taken.
    lost = replay(_scenario(project, ["shelf"]), [{"invocation": "req-1#1", "ordinal": 1, "fault": "ambiguous"}])
    [seen] = logged_lines(lost)
    assert seen["error"]["message"].startswith("Network connection lost.")
    stock = [e for e in lost["effects"] if e["target"] == "D1:stock/DB" and e["kind"] == "snapshot"][0]["payload"]["rows"]
    assert [{"sku": "widget", "qty": 3}] == stock


#: What a real service binding delivers for each value a callee throws (runtime/test/rpc_thrown.json,
#: measured on Miniflare under each side's enhanced_error_serialization; rpc_thrown.test.mjs holds the
#: file to a real binding and to the model's rule), and what the caller's catch records (the file's `observe`).
#: A case answered with a function's source text is left out: the callee is bundled, which rewrites it.
VECTORS = json.loads((Path(__file__).resolve().parents[1] / "runtime" / "test" / "rpc_thrown.json").read_text())
THROWN = [case for case in VECTORS["cases"] if not case.get("sourceText")]


@pytest.mark.parametrize(
    ("caller_date", "callee_date", "seen"),
    [("2026-01-01", "2026-01-01", "caller"), ("2026-04-21", "2026-04-21", "enhanced"),
     ("2026-04-21", "2026-04-20", "callerOnly"), ("2026-01-01", "2026-05-01", "caller")],
    ids=["neither", "both", "caller-only", "callee-only"],
)
def test_what_a_callee_throws_reaches_the_caller_as_a_real_binding_delivers_it(tmp_path, caller_date, callee_date, seen):
    """Each case of rpc_thrown.json thrown by a callee run by Eutaxy (a string, a number, a plain object,
    null, an error of a class of its own with own properties, ...): the caller sees what workerd delivers
    between Workers of these compatibility dates. The callee runs in the caller's isolate with the
    caller's date, so its own setting is its config's, which the load message carries."""
    methods = "\n".join(f"  async m{i}() {{ throw ({case['throw']}); }}" for i, case in enumerate(THROWN))
    write_shop(tmp_path, """
const observe = %s;
export default {
  async fetch(request, env) {
    const seen = [];
    for (let i = 0; i < %d; i++) {
      try { await env.STOCK["m" + i](); seen.push("returned"); } catch (e) { seen.push(observe(e)); }
    }
    await env.DB.prepare("INSERT INTO log (line) VALUES (?)").bind(JSON.stringify({ seen })).run();
    return new Response("ok");
  },
};
""" % (VECTORS["observe"], len(THROWN)), compatibility_date=caller_date)
    write_files(tmp_path / "stock", {
        "worker.js": f'import {{ WorkerEntrypoint }} from "cloudflare:workers";\nexport class Stock extends WorkerEntrypoint {{\n{methods}\n}}\n'
                     'export default { async fetch() { return new Response("rpc only"); } };\n',
        "wrangler.jsonc": worker_config("stock", compatibility_date=callee_date),
    })
    scenario = define_scenario(
        name="thrown", root=tmp_path, worker={"entry": "./shop/worker.js", "config": "./shop/wrangler.jsonc"},
        setup=[callee("STOCK", config="./stock/wrangler.jsonc"), d1_schema("DB", "./shop/schema.sql")],
        drive=http([{"method": "GET", "path": "/"}]), invariants=[],
        bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )
    [line] = logged_lines(replay(scenario))
    for case, observed in zip(THROWN, line["seen"], strict=True):
        assert case[seen] == observed, case["case"]


@pytest.mark.parametrize(
    ("caller_date", "callee_date", "seen"),
    [("2026-01-01", "2026-04-21", {"name": "SoldOut", "message": "no stock"}),
     ("2026-04-21", "2026-01-01", {"name": "Error", "message": "SoldOut: no stock"})],
    ids=["callee-on", "callee-off"],
)
def test_an_error_a_callees_scripted_binding_throws_crosses_by_the_callees_setting(tmp_path, caller_date, callee_date, seen):
    """A callee's own scripted binding (stock/PARTNER) is called by the callee: its error crosses by the
    callee's enhanced_error_serialization (its config's date), not the loaded Worker's, the scripted Worker
    taken to have its caller's: with it on the error keeps its name, off it arrives as `Name: message`."""
    write_shop(tmp_path, """
export default {
  async fetch(request, env) {
    await env.DB.prepare("INSERT INTO log (line) VALUES (?)").bind(JSON.stringify(await env.STOCK.quote())).run();
    return new Response("ok");
  },
};
""", compatibility_date=caller_date)
    write_files(tmp_path / "stock", {
        "worker.js": 'import { WorkerEntrypoint } from "cloudflare:workers";\nexport class Stock extends WorkerEntrypoint {\n'
                     "  async quote() { try { return await this.env.PARTNER.price(); } catch (e) { return { name: e.name, message: e.message }; } }\n}\n"
                     'export default { async fetch() { return new Response("rpc only"); } };\n',
        "wrangler.jsonc": worker_config("stock", compatibility_date=callee_date, services=[{"binding": "PARTNER", "service": "partner"}]),
    })
    scenario = define_scenario(
        name="scripted", root=tmp_path, worker={"entry": "./shop/worker.js", "config": "./shop/wrangler.jsonc"},
        setup=[callee("STOCK", config="./stock/wrangler.jsonc"), service("stock/PARTNER", methods={"price": service_error("SoldOut", "no stock")}),
               d1_schema("DB", "./shop/schema.sql")],
        drive=http([{"method": "GET", "path": "/"}]), invariants=[],
        bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )
    assert [seen] == logged_lines(replay(scenario))
