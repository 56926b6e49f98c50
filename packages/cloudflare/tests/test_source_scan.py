"""The text scan of a Worker's source: handlers, literal fetches, routes, body types, imports.

Each test writes a small module and reads what the scan found; nothing is bundled or run.
"""

from __future__ import annotations

from pathlib import Path

from eutaxy.cloudflare.source_scan import body_example, scan_worker, tokenize


def _scan(tmp_path: Path, source: str, **others: str):
    (tmp_path / "worker.ts").write_text(source)
    for name, text in others.items():
        (tmp_path / name.replace("__", ".")).write_text(text)
    return scan_worker(tmp_path / "worker.ts", tmp_path)


def test_tokens_skip_comments_and_keep_strings_templates_and_regexes():
    """A URL inside a comment is no token; a template splits at its substitution; a regex is one token."""
    tokens = tokenize('// fetch("https://no.example")\nconst a = `https://h.example/${id}/x`; const r = /a\\/b/g; "s\\"q"')
    kinds = [(token.kind, token.value) for token in tokens]
    assert ("string", "https://no.example") not in kinds
    assert ("template", "https://h.example/") in kinds
    assert ("template", "/x") in kinds
    assert ("regex", "/a\\/b/g") in kinds
    assert ("string", 's"q') in kinds
    assert [token.line for token in tokens if token.kind == "template"] == [2, 2]


def test_handlers_of_an_object_default_export_and_not_of_other_classes(tmp_path):
    """queue() and fetch() at the export's top level are handlers; a Durable Object's fetch is not."""
    scan = _scan(tmp_path, """
export class Counter extends DurableObject {
  async fetch(request: Request) { return new Response("x"); }
  async scheduled() {}
}
export default {
  async queue(batch: MessageBatch<Job>, env: Env): Promise<void> {
    await fetch("https://api.example.com/jobs", { method: "post" });
  },
  fetch: handleFetch,
} satisfies ExportedHandler<Env>;
""")
    assert ("fetch", "queue") == scan.handlers
    assert "object" == scan.export_shape
    assert [("api.example.com", "/jobs", "POST")] == [(f.host, f.path, f.method) for f in scan.fetches]


def test_named_worker_entrypoints_and_their_methods(tmp_path):
    """export class X extends WorkerEntrypoint<Env> {...}: its methods in order (not the
    constructor, a getter or a readonly field); a class extending something else is not one."""
    scan = _scan(tmp_path, """
export class Ledger extends WorkerEntrypoint<Env> {
  readonly started = Date.now();
  constructor(ctx: ExecutionContext, env: Env) { super(ctx, env); }
  async credit(id: string): Promise<void> { if (id) { await this.env.DB.exec("x"); } }
  get name() { return "ledger"; }
  balance<T>(): number { return 0; }
}
export class Room extends DurableObject {}
export default { async fetch() { return new Response(""); } };
""")
    assert (("Ledger", ("credit", "balance")),) == scan.entrypoints
    # A generic method's parameters (balance<T>()) are not read.
    assert {("Ledger", "credit"): (("id", "string"),)} == scan.entrypoint_params
    assert ("fetch",) == scan.handlers


def test_handlers_of_a_class_a_bound_object_and_a_router(tmp_path):
    """export default class …, export default handler (an object), export default app (new Hono())."""
    assert ("fetch",) == _scan(tmp_path, "export default class extends WorkerEntrypoint { async fetch(r) { return r; } }").handlers
    bound = _scan(tmp_path, "const handler = { scheduled(controller) {}, queue };\nexport default handler;")
    assert ("queue", "scheduled") == bound.handlers
    assert "bound object" == bound.export_shape
    router = _scan(tmp_path, 'const app = new Hono();\napp.post("/orders", (c) => c.json({}));\nexport default app;')
    assert ("fetch",) == router.handlers
    assert "router" == router.export_shape
    assert [("/orders", "POST")] == [(route.path, route.method) for route in router.routes]


def test_literal_urls_through_a_constant_a_template_and_new_request(tmp_path):
    """A name bound to a literal is followed once; a template's literal head gives the host and
    path prefix; a URL built at run time is counted, not guessed; a binding's fetch is not outbound."""
    scan = _scan(tmp_path, """
const CHARGES = "https://api.pay.example/v1/charges";
export default {
  async fetch(request: Request, env: Env) {
    await fetch(CHARGES, { method: "POST", headers: { "Idempotency-Key": "k" } });
    await fetch(`https://hooks.example.org/v2/${request.url}`);
    await fetch(new Request("https://cdn.example.net/a.json"));
    await fetch(request.url);
    await env.SERVICE.fetch("https://internal/x");
    return new Response("ok");
  },
};
""")
    found = [(f.host, f.path, f.method, f.where) for f in scan.fetches]
    assert ("api.pay.example", "/v1/charges", "POST", "worker.ts:5") in found
    assert ("hooks.example.org", "/v2/*", "GET", "worker.ts:6") in found  # a prefix, as an external route writes one
    assert ("cdn.example.net", "/a.json", "GET", "worker.ts:7") in found
    assert 3 == len(found)
    assert ("worker.ts:8",) == scan.dynamic_fetches  # fetch(request.url); new Request(...) is read by itself
    assert ("Idempotency-Key",) == scan.idempotency_headers


def test_routes_methods_body_type_env_names_and_relative_imports(tmp_path):
    """Paths compared to pathname, the method compared, the body's declared fields (in an imported
    module), env names read; the imported module is scanned too, a missing one named."""
    scan = _scan(
        tmp_path,
        """
import { save } from "./store.js";
import "./missing";
import type { Order } from "./types";
export default {
  async fetch(request: Request, env: Env) {
    const url = new URL(request.url);
    if (request.method !== "POST" || url.pathname !== "/orders") return new Response("", { status: 404 });
    const order = await request.json<Order>();
    await save(env.DB, order, env.API_TOKEN);
    return new Response("ok");
  },
};
""",
        store__ts='export async function save(db, order) { await fetch("https://audit.example/log", { method: "PUT" }); }',
        types__ts="export interface Order { orderId: string; amountCents: number; rush?: boolean; items: Item[] }",
    )
    assert ("worker.ts", "store.ts", "types.ts") == scan.modules
    assert any("./missing" in item for item in scan.skipped)
    assert [("/orders", "worker.ts:8")] == [(route.path, route.where) for route in scan.routes]
    assert ("POST",) == scan.methods
    assert "Order" == scan.body_type
    assert {"orderId": "", "amountCents": 0, "rush": False, "items": None} == body_example(scan.body_fields)
    assert ("API_TOKEN", "DB") == scan.env_names
    assert [("audit.example", "PUT", "store.ts:1")] == [(f.host, f.method, f.where) for f in scan.fetches]


def test_a_default_export_without_handlers_and_odd_text_do_not_fail(tmp_path):
    """Unterminated strings, templates and comments end at the text's end; no handler is none."""
    scan = _scan(tmp_path, 'export default function () {}\nconst s = "open\nconst t = `x ${ y\n/* never closed')
    assert () == scan.handlers
    assert "none" == scan.export_shape


def test_the_keys_of_a_json_body_a_fetch_sends(tmp_path):
    """body: JSON.stringify({...}) gives its top-level keys and the name each value reads, so a
    draft can key an example by the field that carries the event's value (to: email)."""
    scan = _scan(tmp_path, """
export default {
  async queue(batch, env) {
    for (const { body: { email, id } } of batch.messages) {
      await fetch("https://api.mail.example/v1/send", {
        method: "POST",
        body: JSON.stringify({ from: env.FROM, to: email, id, meta: { nested: email } }),
      });
    }
  },
};
""")
    assert (("from", None), ("to", "email"), ("id", "id"), ("meta", None)) == scan.fetches[0].body_keys


def test_a_bundlers_export_of_a_name_as_default(tmp_path):
    """``export { worker_default as default }`` (a build's output) names the default export."""
    scan = _scan(tmp_path, """
var worker_default = { async fetch(request) { return new Response("x"); }, async queue(batch) {} };
export { helper, worker_default as default };
""")
    assert ("bound object", ("fetch", "queue")) == (scan.export_shape, scan.handlers)


def test_how_a_literal_fetchs_reply_is_read(tmp_path):
    """A bound reply's .json(), (await fetch()).text(), .then((r) => r.json()); a reply read no way is None."""
    scan = _scan(tmp_path, """
export default {
  async fetch(request) {
    const reply = await fetch("https://a.example/x", { method: "POST" });
    const charge = await reply.json<{ id: string }>();
    const page = await (await fetch("https://b.example/p")).text();
    const data = await fetch("https://c.example/d").then((r) => r.json());
    const done = await fetch("https://d.example/e");
    return new Response(done.ok ? "y" : "n");
  },
};
""")
    assert [("a.example", "json"), ("b.example", "text"), ("c.example", "json"), ("d.example", None)] == [
        (fetch.host, fetch.reads) for fetch in scan.fetches
    ]


def test_inline_body_types_the_body_read_and_required_headers(tmp_path):
    """``json<{...}>()`` and ``(await request.json()) as {...}`` give the body's fields; a header
    read with a 400 near it is required; a WebSocket message parsed ``as {...}`` is a body too."""
    inline = _scan(tmp_path, """
export default {
  async fetch(request, env) {
    const key = request.headers.get("Idempotency-Key");
    const accept = request.headers.get("Accept");
    if (!request.headers.get("X-Tenant")) return new Response("no tenant", { status: 400 });
    const { order, cents } = await request.json<{ order: string; cents: number }>();
    if (key === null) return new Response("an Idempotency-Key header is required", { status: 400 });
    return new Response("ok");
  },
};
""")
    assert ("an inline type", (("order", "string"), ("cents", "number"))) == (inline.body_type, inline.body_fields)
    assert inline.reads_body
    assert (("Idempotency-Key", "worker.ts:4"), ("X-Tenant", "worker.ts:6")) == inline.required_headers
    cast = _scan(tmp_path, """
export default { async fetch(request) { const { visit } = (await request.json()) as { visit: string }; return new Response(visit); } };
""")
    assert (("visit", "string"),) == cast.body_fields
    message = _scan(tmp_path, """
export class Room extends Agent { async onMessage(connection, message: WSMessage) { const { text } = JSON.parse(String(message)) as { text: string }; } }
export default { async fetch(request, env) { return (await routeAgentRequest(request, env)) ?? new Response("", { status: 404 }); } };
""")
    assert ((("text", "string"),), False, ("onMessage",)) == (message.body_fields, message.reads_body, message.agent_handlers)


def test_d1_statements_object_names_and_object_sql(tmp_path):
    """Each prepared statement with its SQL (through a constant) and its bound arguments' last
    names; the objects addressed by name; the SQL an object runs on its own database."""
    scan = _scan(tmp_path, """
const INSERT = "INSERT INTO charges (message_id, order_id) VALUES (?, ?)";
export class Counter extends DurableObject {
  async record(visit) { this.ctx.storage.sql.exec("INSERT INTO hits (visit) VALUES (?)", visit); }
}
export default {
  async queue(batch, env) {
    for (const message of batch.messages) {
      await env.DB.prepare(INSERT).bind(message.id, message.body.orderId).run();
      await env.DB.prepare(`SELECT * FROM t WHERE id = ${1}`).first();
      await env.COUNTER.getByName("site").record(message.body.orderId);
      await env.COUNTER.get(env.COUNTER.idFromName(message.body.orderId)).record("x");
    }
  },
};
""")
    assert [("DB", "INSERT INTO charges (message_id, order_id) VALUES (?, ?)", ("id", "orderId"), "worker.ts:9"),
            ("DB", None, (), "worker.ts:10")] == [
        (statement.binding, statement.sql, statement.args, statement.where) for statement in scan.d1_statements
    ]
    assert (("COUNTER", None, "site", "worker.ts:11"), ("COUNTER", "orderId", None, "worker.ts:12")) == scan.object_names
    assert ("INSERT INTO hits (visit) VALUES (?)",) == scan.object_sql


def test_vites_import_meta_env_is_not_the_workers_env(tmp_path):
    """``import.meta.env.MODE`` is the build's (Vite fills it in), never a name read from the Worker's env."""
    scan = _scan(tmp_path, """
export default { async fetch(request, env) { return new Response(import.meta.env.MODE + env.API_TOKEN + this.env.DB); } };
""")
    assert ("API_TOKEN", "DB") == scan.env_names


def test_routes_are_mounted_as_the_router_mounts_them(tmp_path):
    """Hono's route("/api", tasks) over a router imported from another module (its own routes
    under "/" and "/:id"), itty-router's base, Hono's basePath and chanfana's fromHono base: each
    path carries its prefix and where the prefix was read."""
    scan = _scan(tmp_path, """
import { Hono } from "hono";
import tasks from "./tasks";
import { AutoRouter } from "itty-router";
const app = new Hono();
app.route("/api/tasks", tasks);
app.get("/health", (c) => c.text("ok"));
const itty = AutoRouter({ base: "/v1" });
itty.post("/orders", () => new Response("x"));
const v2 = new Hono().basePath("/v2");
v2.delete("/orders/:id", (c) => c.text("x"));
const openapi = fromHono(new Hono(), { base: "/docs-api" });
openapi.put("/items", ItemUpdate);
export default app;
""", tasks__ts="""
import { Hono } from "hono";
const router = new Hono();
router.get("/", (c) => c.json([]));
router.post("/:id", async (c) => c.json(await c.req.json()));
export default router;
""")
    assert [
        ("GET", "/api/tasks", "worker.ts:6"), ("POST", "/api/tasks/:id", "worker.ts:6"), ("GET", "/health", None),
        ("POST", "/v1/orders", "worker.ts:8"), ("DELETE", "/v2/orders/:id", "worker.ts:10"), ("PUT", "/docs-api/items", "worker.ts:12"),
    ] == sorted(
        [(route.method, route.path, route.mounted_by) for route in scan.routes],
        key=lambda item: ["/api/tasks", "/api/tasks/:id", "/health", "/v1/orders", "/v2/orders/:id", "/docs-api/items"].index(item[1]),
    )
