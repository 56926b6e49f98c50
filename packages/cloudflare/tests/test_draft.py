"""``eutaxy.cloudflare.draft``: a first scenario from a wrangler config and the Worker's text.

Each test writes a small Worker project into a temporary folder, drafts it, and reads the
draft's data and file: the setup found, the drive chosen, the notes, the holes and that the
file loads up to its holes (and fully once they are filled). Nothing here starts workerd.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from eutaxy.cloudflare import load_scenario
from eutaxy.cloudflare.draft import draft_worker, find_config_upward, write_draft
from eutaxy.cloudflare.worker import prepare_worker
from eutaxy.core.errors import UserError

QUEUE_WORKER = """
interface Job { jobId: string; attempt: number }
export default {
  async queue(batch: MessageBatch<Job>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      await env.DB.prepare("INSERT INTO jobs (job_id) VALUES (?)").bind(message.body.jobId).run();
      await env.CACHE.put(message.body.jobId, "done");
      message.ack();
    }
  },
  async fetch(request: Request, env: Env): Promise<Response> {
    return new Response(await env.SECRET_TOKEN);
  },
};
"""

SCHEMA = "CREATE TABLE jobs (\n  id INTEGER PRIMARY KEY AUTOINCREMENT,\n  job_id TEXT NOT NULL\n);\n"


def _project(folder: Path, config: dict, worker: str = QUEUE_WORKER, files: dict[str, str] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "worker.ts").write_text(worker)
    for name, text in (files or {}).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    path = folder / "wrangler.jsonc"
    path.write_text("// a test Worker\n" + json.dumps({"main": "./worker.ts", "compatibility_date": "2026-01-01", **config}, indent=2))
    return path


def _config(**extra) -> dict:
    return {
        "name": "jobs",
        "d1_databases": [{"binding": "DB", "database_name": "jobs-db"}],
        "queues": {"consumers": [{"queue": "jobs"}]},
        "kv_namespaces": [{"binding": "CACHE", "id": "c"}],
        **extra,
    }


#: The secret the queue Worker's fetch() reads, given as wrangler reads it in development.
DEV_VARS = {".dev.vars": "SECRET_TOKEN=dev-token\n"}


def fill(source: str, events: str, invariants: str) -> str:
    """The draft's text with its events and invariants holes written (as a test author would)."""
    source = re.sub(r'todo\("events", "[^"]*"\)', events, source)
    return re.sub(r'todo\("invariants", "[^"]*"\)', invariants, source)


def test_a_queue_worker_gets_its_schema_its_queue_drive_and_two_holes(tmp_path):
    """D1 from schema.sql, the consumer's queue as the drive (queue() and a consumer), the
    events and invariants as holes, the body type's fields as the example."""
    config = _project(tmp_path / "w", _config(), files={"schema.sql": SCHEMA, **DEV_VARS})
    draft = draft_worker(config)
    assert tmp_path / "w" / "jobs.sim.py" == draft.path
    assert [
        {"kind": "d1_schema", "binding": "DB", "path": "./schema.sql", "found": "schema.sql beside the config"},
        {"kind": "kv_namespace", "binding": "CACHE"},
    ] == list(draft.setup)
    assert {"kind": "queue", "name": "jobs", "variable": "jobs"} == draft.drive
    assert ["events", "invariants"] == [hole["name"] for hole in draft.holes]
    assert ({"body": {"jobId": "", "attempt": 0}},) == draft.example_events
    assert 'unique("jobs-job_id-unique", d1_rows("DB", "jobs"), "job_id"),' in draft.example_invariants
    lines = draft.source.splitlines()
    for hole in draft.holes:
        assert f'todo("{hole["name"]}"' in lines[hole["line"] - 1]
    assert "# TODO(events):" in draft.source and "# TODO(invariants):" in draft.source
    # No maxRedeliveries: each queue redelivers up to its own max_retries, as on Cloudflare (issue 27).
    assert "maxRedeliveries" not in draft.source
    assert any(line.strip().startswith("bounds=") and "maxFaultsPerRun" in line for line in lines)


def test_access_assets_containers_and_stated_sections_are_notes(tmp_path):
    """Access in front (with the headers to give), the assets directory the check keeps requests off, a container's
    Durable Object, and the config sections each verdict states are notes of the draft."""
    config = _project(
        tmp_path / "w",
        _config(
            access={"team_domain": "staff.cloudflareaccess.com"},
            assets={"directory": "./public"},
            durable_objects={"bindings": [{"name": "BOX", "class_name": "Sandbox"}]},
            containers=[{"class_name": "Sandbox", "image": "./Dockerfile"}],
            routes=["shop.example.com/*"],
            observability={"enabled": True},
        ),
        files={"schema.sql": SCHEMA, "public/index.html": "<h1>shop</h1>"},
    )
    notes = [(note.kind, note.text) for note in draft_worker(config).notes]
    assert any(kind == "unproxied" and "Cloudflare Access" in text and "Cf-Access-Jwt-Assertion" in text for kind, text in notes)
    assert any(kind == "read" and text.startswith("the assets directory ./public answers requests") for kind, text in notes)
    assert any(kind == "unproxied" and text.startswith("Durable Object binding BOX (class Sandbox) runs a container") for kind, text in notes)
    assert ("read", "config sections not modelled, each named with its assumption in every verdict: containers, routes, observability") in notes


def test_unproxied_bindings_other_entry_points_and_unknown_env_names_are_notes(tmp_path):
    """A Durable Object is noted as not proxied, a producer as read (KV is proxied: a note says it starts empty); fetch() as not driven;
    env.SECRET_TOKEN as read but not declared, and a hole in worker.secrets. Each note is in the file too."""
    config = _project(
        tmp_path / "w",
        _config(
            durable_objects={"bindings": [{"name": "ROOMS", "class_name": "Room", "script_name": "chat"}]},
            queues={"consumers": [{"queue": "jobs"}], "producers": [{"binding": "OUT", "queue": "done"}]},
        ),
        files={"schema.sql": SCHEMA},
    )
    draft = draft_worker(config)
    unproxied = [note.text for note in draft.notes if note.kind == "unproxied"]
    assert not any("CACHE" in text for text in unproxied)
    assert any(note.text.startswith("kv binding CACHE: starts every run empty") for note in draft.notes if note.kind == "guess")
    assert '        kv_namespace("CACHE"),' in draft.source.splitlines()
    assert any('kv_write("CACHE", "put"), kv_key())' in line for line in draft.example_invariants)
    assert any("Durable Object binding ROOMS (class Room of Worker chat) belongs to another Worker" in text for text in unproxied)
    assert not any("queue producer" in text for text in unproxied)
    produced = [note.text for note in draft.notes if note.kind == "read" and "queue producer OUT" in note.text]
    assert ["queue producer OUT (queue done): what it sends is kept as rows, queue_rows('done'), for state invariants"] == produced
    assert any("also has a fetch() handler" in note.text for note in draft.notes if note.kind == "entry_point")
    assert not any("end to end" in note.text for note in draft.notes)  # OUT sends to a queue it does not consume
    own = draft_worker(_project(tmp_path / "own", _config(queues={"consumers": [{"queue": "jobs"}], "producers": [{"binding": "JOBS", "queue": "jobs"}]}),
                                files={"schema.sql": SCHEMA, **DEV_VARS}))
    assert any("what it sends to queue jobs is delivered to queue() in the same run" in note.text for note in own.notes if note.kind == "entry_point")
    assert any("env.SECRET_TOKEN" in note.text for note in draft.notes if note.kind == "unread")
    assert ["events", "secrets", "invariants"] == [hole["name"] for hole in draft.holes]
    assert '"SECRET_TOKEN": todo("secrets", "a test value for env.SECRET_TOKEN"),' in draft.source
    (tmp_path / "w" / ".env").write_text("SECRET_TOKEN=from-dotenv\n")  # wrangler's other local secret file
    assert ["events", "invariants"] == [hole["name"] for hole in draft_worker(config).holes]
    comments = " ".join(line.lstrip("# ").strip() for line in draft.source.splitlines() if line.startswith("#"))
    for note in draft.notes:
        assert f"- {note.kind}: {note.text}" in comments


@pytest.mark.parametrize(
    ("files", "found"),
    [
        ({"jobs-db.sql": SCHEMA}, "jobs-db.sql beside the config (the database's name)"),
        ({"init.sql": SCHEMA}, "the only .sql file beside the config (init.sql)"),
    ],
)
def test_the_schema_is_found_as_the_seeds_say(tmp_path, files, found):
    """<database_name>.sql, else the only .sql file: each a guess the notes name."""
    draft = draft_worker(_project(tmp_path / "w", _config(), files={**files, **DEV_VARS}))
    assert found == draft.setup[0]["found"]
    assert any(note.kind == "guess" and found in note.text for note in draft.notes)


def test_an_r2_bucket_is_set_up_empty_with_a_note_and_an_example(tmp_path):
    """R2 is proxied: r2_bucket(name) in the setup (starting empty, a noted guess), an r2_op example."""
    draft = draft_worker(_project(tmp_path / "w", _config(r2_buckets=[{"binding": "FILES", "bucket_name": "files"}]),
                                  files={"schema.sql": SCHEMA, **DEV_VARS}))
    assert {"kind": "r2_bucket", "binding": "FILES"} in draft.setup
    assert '        r2_bucket("FILES"),' in draft.source.splitlines()
    assert any(note.kind == "guess" and "FILES: starts every run empty" in note.text for note in draft.notes)
    assert not any("FILES" in note.text for note in draft.notes if note.kind == "unproxied")
    assert 'at_most_once_per_key("one-put-per-key-files", r2_op("FILES", "put"), "args.key"),' in draft.example_invariants


def test_migrations_are_the_schema_when_the_config_names_them_or_nothing_else_is_there(tmp_path):
    """The entry's migrations_dir is read, not guessed; wrangler's default migrations/ is the
    last fallback, a guess; the example invariants read the tables the migrations create."""
    named = _config(d1_databases=[{"binding": "DB", "database_name": "jobs-db", "migrations_dir": "db/migrations"}])
    draft = draft_worker(_project(tmp_path / "a", named, files={"db/migrations/0001_init.sql": SCHEMA, "schema.sql": "", **DEV_VARS}))
    assert "./db/migrations" == draft.setup[0]["path"]
    assert any(note.kind == "read" and "the migrations_dir the config names (db/migrations)" in note.text for note in draft.notes)
    assert 'unique("jobs-job_id-unique", d1_rows("DB", "jobs"), "job_id"),' in draft.example_invariants
    default = draft_worker(_project(tmp_path / "b", _config(), files={"migrations/0001_init.sql": SCHEMA, **DEV_VARS}))
    assert "./migrations" == default.setup[0]["path"]
    assert any(note.kind == "guess" and "default migrations/ folder" in note.text for note in default.notes)


def test_a_durable_object_of_the_workers_own_is_set_up_with_a_note_and_an_example(tmp_path):
    """The Worker's own class: durable_object(binding), empty storage a noted guess; the object
    the code addresses by the event's key is reached at least once per event (no "one call per
    object": an object serves many calls)."""
    config = _config(durable_objects={"bindings": [{"name": "COUNTER", "class_name": "Counter"}]})
    worker = QUEUE_WORKER.replace("message.ack();", "await env.COUNTER.getByName(message.body.jobId).bump();\n      message.ack();")
    draft = draft_worker(_project(tmp_path / "w", config, worker=worker, files={"schema.sql": SCHEMA, **DEV_VARS}))
    assert {"kind": "durable_object", "binding": "COUNTER"} in draft.setup
    assert '        durable_object("COUNTER"),' in draft.source.splitlines()
    assert any(note.kind == "guess" and "COUNTER (class Counter): every object starts" in note.text for note in draft.notes)
    assert not any(note.kind == "unproxied" for note in draft.notes if "COUNTER" in note.text)
    assert ('at_least_once_per_message("every-event-reaches-its-counter", jobs, do_call("COUNTER"), "args.object", "jobId"),'
            in draft.example_invariants)
    assert not any("call-per-object" in example for example in draft.example_invariants)
    assert any(note.kind == "read" and "worker.ts:8 addresses the object by the event's jobId" in note.text for note in draft.notes)


def test_no_schema_is_a_hole(tmp_path):
    """Two .sql files and none named as the seeds say: the schema path is a hole, not a pick."""
    draft = draft_worker(_project(tmp_path / "w", _config(), files={"a.sql": SCHEMA, "b.sql": SCHEMA, **DEV_VARS}))
    assert None is draft.setup[0]["path"]
    assert ["events", "schema", "invariants"] == sorted([h["name"] for h in draft.holes], key=["events", "schema", "invariants"].index)
    assert 'd1_schema("DB", todo("schema"' in draft.source


def test_a_fetch_worker_gets_an_http_drive_the_externals_and_route_hints(tmp_path):
    """No consumer: fetch() over http(...), the caller a noted guess; a literal URL an external."""
    worker = """
const API = "https://api.shop.example/v1/orders";
type Order = { orderId: string };
export default {
  async fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname !== "/orders") return new Response("", { status: 404 });
    const order = await request.json<Order>();
    await fetch(API, { method: "POST", body: JSON.stringify(order) });
    return new Response("ok");
  },
};
"""
    draft = draft_worker(_project(tmp_path / "w", {"name": "shop"}, worker=worker))
    assert "http" == draft.drive["kind"]
    orders = {"method": "POST", "path": "/v1/orders", "where": "worker.ts:8"}
    assert [{"name": "api.shop.example", "host": "api.shop.example", "requests": [orders]}] == list(draft.externals)
    # The code reads the body (request.json<Order>()), so the example request is a POST carrying it.
    assert ({"method": "POST", "path": "/orders", "body": {"orderId": ""}},) == draft.example_events
    assert 'external("api.shop.example", "api.shop.example"),' in draft.source
    # The example caller resends after a failure (a marked guess), so the example response invariant holds under a fault.
    assert any(note.kind == "guess" and "resends a request it got no answer or a 5xx for" in note.text for note in draft.notes)
    assert 'retries=3, retry_on="5xx", delays_ms=[1000, 5000],' in draft.source


def test_a_worker_with_only_a_scheduled_handler_gets_a_drive_hole(tmp_path):
    """Cron has no drive in this build: noted, and the drive itself is a hole."""
    worker = "export default { async scheduled(controller, env) { await env.DB.exec('x'); } };"
    draft = draft_worker(_project(tmp_path / "w", {"name": "cron"}, worker=worker))
    assert None is draft.drive
    assert "drive" in [hole["name"] for hole in draft.holes]
    assert any("scheduled() handler" in note.text for note in draft.notes if note.kind == "entry_point")


def test_a_worker_with_cron_triggers_and_a_scheduled_handler_gets_the_cron_drive(tmp_path):
    """The config's first Cron Trigger drives scheduled(); the tick count is the events hole; the
    other expressions and fetch() are second scenarios; filled, the draft loads and passes the check."""
    worker = (
        "export default {\n  async scheduled(controller, env) { await env.DB.prepare('INSERT INTO jobs (job_id) VALUES (?)')"
        ".bind(String(controller.scheduledTime)).run(); },\n  async fetch() { return new Response('ok'); },\n};\n"
    )
    config = _config(triggers={"crons": ["*/10 * * * *", "0 3 * * sun"]}, queues={})
    config.pop("kv_namespaces")
    path = _project(tmp_path / "w", config, worker=worker, files={"schema.sql": SCHEMA})
    draft = draft_worker(path)
    assert {"kind": "cron", "name": "cron", "variable": "ticks"} == draft.drive
    assert ["events", "invariants"] == [hole["name"] for hole in draft.holes]
    assert 'ticks = cron(\n    "*/10 * * * *",' in draft.source
    entry_points = [note.text for note in draft.notes if note.kind == "entry_point"]
    assert any("cron('0 3 * * sun', ...)" in text for text in entry_points), entry_points
    assert any("fetch() handler" in text for text in entry_points), entry_points
    written = tmp_path / "w" / "jobs.sim.py"
    written.write_text(fill(draft.source, "3", draft.example_invariants[0].rstrip(",")))
    scenario = load_scenario(written)
    assert ["tick-1", "tick-2", "tick-3"] == [event["id"] for event in scenario["drive"]["events"]]
    assert [0, 600_000, 1_200_000] == [event["atMs"] for event in scenario["drive"]["events"]]
    prepare_worker(scenario)


def test_a_worker_exporting_a_worker_entrypoint_gets_the_rpc_drive(tmp_path):
    """The first WorkerEntrypoint class the entry exports is driven over RPC, its methods the example;
    a second one and fetch() are second scenarios; filled with the example, the draft loads."""
    worker = (
        'import { WorkerEntrypoint } from "cloudflare:workers";\n'
        "export class Ledger extends WorkerEntrypoint<Env> {\n"
        "  async credit(id: string) { await this.env.DB.prepare('INSERT INTO jobs (job_id) VALUES (?)').bind(id).run(); }\n"
        "  balance() { return 0; }\n}\n"
        "export class Audit extends WorkerEntrypoint { async log() {} }\n"
        "export default { async fetch() { return new Response('ok'); } };\n"
    )
    config = _config()
    config.pop("queues")
    config.pop("kv_namespaces")
    path = _project(tmp_path / "w", config, worker=worker, files={"schema.sql": SCHEMA})
    draft = draft_worker(path)
    assert {"kind": "rpc", "name": "rpc", "variable": "calls"} == draft.drive
    # The example's arguments by the method's declared parameter types: credit(id: string).
    assert ({"method": "credit", "args": [""]},) == draft.example_events
    assert "    # Its methods: credit, balance;" in draft.source and '    entrypoint="Ledger",' in draft.source
    entry_points = [note.text for note in draft.notes if note.kind == "entry_point"]
    assert any("rpc(..., entrypoint='Audit')" in text for text in entry_points), entry_points
    assert any("fetch() handler" in text for text in entry_points), entry_points
    assert not any("at_least_once_per_message" in line for line in draft.example_invariants)
    written = tmp_path / "w" / "jobs.sim.py"
    written.write_text(fill(draft.source, json.dumps(list(draft.example_events)), draft.example_invariants[0].rstrip(",")))
    scenario = load_scenario(written)
    assert [{"id": "call-1", "method": "credit", "args": [""]}] == scenario["drive"]["events"]
    prepare_worker(scenario)


def test_the_draft_loads_up_to_its_holes_and_fully_once_filled(tmp_path):
    """Unfilled: loading names each hole with its line (exit 2 material). Filled: the scenario
    loads and the Worker's config and setup pass prepare_worker."""
    config = _project(tmp_path / "w", _config(), files={"schema.sql": SCHEMA, **DEV_VARS})
    draft = draft_worker(config)
    path = write_draft(draft)
    with pytest.raises(UserError) as caught:
        load_scenario(path)
    message = str(caught.value)
    assert "a draft with 2 holes still to fill" in message
    for hole in draft.holes:
        assert f"jobs.sim.py:{hole['line']}: TODO({hole['name']})" in message
    path.write_text(fill(draft.source, '[{"body": {"jobId": "j-1", "attempt": 1}}]',
                         'at_most_once_per_key("one-write-per-job", d1_write("DB"), d1_param(0))'))
    scenario = load_scenario(path)
    assert "jobs" == scenario["name"]
    assert [{"id": "msg-1", "body": {"jobId": "j-1", "attempt": 1}}] == scenario["drive"]["events"]
    prepare_worker(scenario)


def test_a_draft_never_replaces_a_file_and_is_deterministic(tmp_path):
    """The second write is refused naming the file, which keeps its text; two drafts are equal."""
    config = _project(tmp_path / "w", _config(), files={"schema.sql": SCHEMA})
    first = draft_worker(config)
    assert first.to_data() == draft_worker(config).to_data()
    path = write_draft(first)
    path.write_text("# mine\n")
    with pytest.raises(UserError, match=re.escape(f"{path}: already exists; eutaxy draft never replaces a file")):
        write_draft(draft_worker(config))
    assert "# mine\n" == path.read_text()


def test_the_config_is_found_from_a_subfolder_and_a_missing_one_is_named(tmp_path):
    """As wrangler: the nearest wrangler config at or above the folder; none is a UserError."""
    config = _project(tmp_path / "w", _config(), files={"schema.sql": SCHEMA})
    (tmp_path / "w" / "src").mkdir()
    assert config == find_config_upward(tmp_path / "w" / "src")
    assert config.resolve() == draft_worker(cwd=tmp_path / "w" / "src").scan.entry.parent / "wrangler.jsonc"
    with pytest.raises(UserError, match="no wrangler config in"):
        find_config_upward(Path("/proc/self"))  # no wrangler config at or above it on any machine


def test_cloudflares_hello_world_durable_object_template_drafts_and_loads_once_filled(tmp_path):
    """The template in hello_do/ (wrangler.json, src/index.ts): its Durable Object set up, fetch()
    driven, and with the holes filled the scenario loads and its Worker passes prepare_worker."""
    import shutil

    folder = tmp_path / "hello_do"
    shutil.copytree(Path(__file__).parent / "hello_do", folder, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    draft = draft_worker(cwd=folder)
    assert ("./src/index.ts", "./wrangler.json") == (draft.entry, draft.config)
    assert [{"kind": "durable_object", "binding": "MY_DURABLE_OBJECT"}] == list(draft.setup)
    assert ("fetch",) == draft.scan.handlers
    path = write_draft(draft)
    path.write_text(fill(draft.source, '[{"path": "/a"}]', draft.example_invariants[0].rstrip(",")))
    prepare_worker(load_scenario(path))


@pytest.mark.parametrize(("binding", "segment"), [("Counter", "counter"), ("MyAgent", "my-agent"), ("MY_AGENT", "my-agent"), ("chat_room", "chat-room")])
def test_the_agent_route_is_the_binding_in_kebab_case(binding, segment):
    from eutaxy.cloudflare.draft import agent_route_namespace

    assert segment == agent_route_namespace(binding)


def test_an_agents_worker_gets_its_agents_routes_as_the_http_drive_and_loads_once_filled(tmp_path):
    """The Agent in agents/ calls routeAgentRequest: the drive is http() with a request to
    /agents/counter/<name> (the binding Counter in kebab case) as its example, the Agent's
    namespace set up, and with the holes filled the scenario loads and the Worker prepares."""
    import shutil

    folder = tmp_path / "agents"
    shutil.copytree(Path(__file__).parent / "agents", folder, ignore=shutil.ignore_patterns("*.py", "__pycache__", "ai.ts", "wrangler-ai.jsonc"))
    draft = draft_worker(cwd=folder)
    assert [{"kind": "durable_object", "binding": "Counter"}] == list(draft.setup)
    assert {"kind": "http", "agents": ["Counter"]} == {k: draft.drive[k] for k in ("kind", "agents")}
    assert ({"method": "POST", "path": "/agents/counter/agent-1", "body": {"who": ""}},) == draft.example_events
    assert any(note.kind == "entry_point" and "/agents/counter/agent-1 (Counter)" in note.text for note in draft.notes)
    assert "# routeAgentRequest serves /agents/<binding in kebab case>/<agent name>: /agents/counter/agent-1 (Counter)." in draft.source
    path = write_draft(draft)
    path.write_text(fill(draft.source, '[{"method": "POST", "path": "/agents/counter/c-1", "body": {"who": "ann"}}]', draft.example_invariants[0].rstrip(",")))
    prepare_worker(load_scenario(path))


def test_a_fetch_workers_draft_follows_what_the_code_reads_and_writes(tmp_path):
    """The API whose reply the code reads with .json() answers {} as JSON (a noted guess); the
    header the code answers 400 without is in the example request, which goes to / with the
    body the code reads; the D1 examples key on the INSERT's parameter that binds the event's
    id (orderId, not the amount), and no once-per-key example when an UPDATE binds it too."""
    worker = """
type Order = { amountCents: number; note: string; orderId: string };
export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const key = request.headers.get("Idempotency-Key");
    if (!key) return new Response("an Idempotency-Key header is required", { status: 400 });
    const order = await request.json<Order>();
    const reply = await fetch("https://api.pay.example/v1/charges", { method: "POST", body: JSON.stringify(order) });
    const charge = await reply.json<{ id: string }>();
    await env.DB.prepare("INSERT INTO charges (amount_cents, order_id, charge_id) VALUES (?, ?, ?)")
      .bind(order.amountCents, order.orderId, charge.id).run();
    return new Response("ok");
  },
};
"""
    config = {"name": "pay", "d1_databases": [{"binding": "DB", "database_name": "pay"}]}
    schema = {"schema.sql": "CREATE TABLE charges (amount_cents INTEGER, order_id TEXT, charge_id TEXT);\n"}
    draft = draft_worker(_project(tmp_path / "w", config, worker=worker, files=schema))
    assert ({"method": "POST", "path": "/", "headers": {"Idempotency-Key": ""}, "body": {"amountCents": 0, "note": "", "orderId": ""}},) == draft.example_events
    assert ('external("api.pay.example", "api.pay.example", [{"method": "POST", "path": "/v1/charges", "status": 200, "body": {}}]),'
            in draft.source)
    assert any(note.kind == "guess" and "worker.ts:8 reads the reply with .json(), so it is answered 200 with {}" in note.text
               for note in draft.notes)
    assert any(note.kind == "guess" and "request header Idempotency-Key" in note.text for note in draft.notes)
    texts = draft_worker(_project(tmp_path / "t", config, worker=worker.replace("reply.json<{ id: string }>()", "reply.text()"), files=schema))
    assert 'external("api.pay.example", "api.pay.example"),' in texts.source
    assert any(note.kind == "guess" and "worker.ts:8 reads the reply with .text(): the unscripted reply's empty body" in note.text
               for note in texts.notes)
    assert [
        'at_most_once_per_key("one-charges-row-per-orderId", d1_write("DB"), d1_param(1)),',
        'at_least_once_per_message("every-event-written", requests, d1_write("DB"), d1_param(1), "orderId"),',
        'unique("charges-order_id-unique", d1_rows("DB", "charges"), "order_id"),',
    ] == [example for example in draft.example_invariants if "DB" in example]
    updated = worker.replace("return new Response(\"ok\");", 'await env.DB.prepare("UPDATE charges SET note = ? WHERE order_id = ?")'
                             '.bind(order.note, order.orderId).run();\n    return new Response("ok");')
    draft = draft_worker(_project(tmp_path / "u", config, worker=updated, files=schema))
    assert not any(example.startswith("at_most_once_per_key(") and "DB" in example for example in draft.example_invariants)


def test_a_worker_that_only_reads_its_database_gets_no_write_example(tmp_path):
    """SELECT alone: no example over D1 writes (it would be refused as vacuous), a read note instead."""
    worker = """
export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const row = await env.DB.prepare("SELECT name FROM users WHERE id = ?").bind("u-1").first();
    return Response.json(row);
  },
};
"""
    config = {"name": "users", "d1_databases": [{"binding": "DB", "database_name": "users"}]}
    draft = draft_worker(_project(tmp_path / "w", config, worker=worker, files={"schema.sql": "CREATE TABLE users (id TEXT, name TEXT);\n"}))
    assert not any('"DB"' in example for example in draft.example_invariants)
    assert any(note.kind == "read" and "D1 binding DB: the code only reads it" in note.text for note in draft.notes)


def test_a_schema_named_by_a_package_script_or_the_readme_or_found_below_is_chosen_and_said(tmp_path):
    """No schema beside the config: the .sql file package.json's script names (the one naming the
    database first), else the README's, else the one a search of the folders below finds
    (schema/init.sql); each is a guess naming where it came from. Several and none to prefer: a hole."""
    scripted = {
        "worker/schema.sql": SCHEMA, "other/seed.sql": SCHEMA, **DEV_VARS,
        "package.json": json.dumps({"scripts": {"seed": "wrangler d1 execute other --file=./other/seed.sql",
                                                "db:init": "wrangler d1 execute jobs-db --local --file=./worker/schema.sql"}}),
    }
    draft = draft_worker(_project(tmp_path / "a", _config(), files=scripted))
    assert "./worker/schema.sql" == draft.setup[0]["path"]
    assert any(note.kind == "guess" and "worker/schema.sql, the .sql file package.json's script 'db:init' names" in note.text
               for note in draft.notes)
    readme = {"db/tables.sql": SCHEMA, "README.md": "# Jobs\n\nCreate the tables:\n\n    npx wrangler d1 execute jobs-db --file db/tables.sql\n"}
    draft = draft_worker(_project(tmp_path / "b", _config(), files={**readme, **DEV_VARS}))
    assert "./db/tables.sql" == draft.setup[0]["path"]
    assert any("db/tables.sql, the .sql file README.md:5 names" in note.text for note in draft.notes)
    searched = draft_worker(_project(tmp_path / "c", _config(), files={"schema/init.sql": SCHEMA, "node_modules/x/y.sql": "", **DEV_VARS}))
    assert "./schema/init.sql" == searched.setup[0]["path"]
    assert any(note.kind == "guess" and "the only .sql file a search of the project's folders up to 3 deep found (schema/init.sql)" in note.text
               for note in searched.notes)
    several = draft_worker(_project(tmp_path / "d", _config(), files={"a/one.sql": SCHEMA, "b/two.sql": SCHEMA, **DEV_VARS}))
    assert None is several.setup[0]["path"]
    assert any(note.kind == "unread" and "found several (a/one.sql, b/two.sql) with none to prefer" in note.text for note in several.notes)


#: A Worker storing an upload in R2 under a name its D1 row keeps (``?2``: the key), and a KV marker under the same name.
FILES_WORKER = """
type Upload = { fileId: string; text: string };
export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const upload = await request.json<Upload>();
    const key = `files/${upload.fileId}`;
    await env.DB.prepare("INSERT INTO files (r2_key, id) VALUES (?2, ?1)").bind(upload.fileId, key).run();
    await env.FILES.put(key, upload.text);
    await env.CACHE.put(key, "1");
    return new Response("stored", { status: 201 });
  },
};
"""
FILES_CONFIG = {"name": "files", "d1_databases": [{"binding": "DB", "database_name": "files"}],
                "r2_buckets": [{"binding": "FILES", "bucket_name": "files"}], "kv_namespaces": [{"binding": "CACHE", "id": "c"}]}


def test_a_d1_row_naming_the_r2_object_the_code_puts_gets_a_references_example(tmp_path):
    """The INSERT binds the name the code puts the R2 object under (?2 names it): references from
    that column to the bucket's keys, with a note; a KV put under the same name is not R2's."""
    draft = draft_worker(_project(tmp_path / "w", FILES_CONFIG, worker=FILES_WORKER, files={"schema.sql": "CREATE TABLE files (id TEXT, r2_key TEXT);\n"}))
    assert ['references("every-files-r2_key-in-files", d1_rows("DB", "files"), "r2_key", r2_rows("FILES"), "key"),'] == [
        example for example in draft.example_invariants if example.startswith("references(")
    ]
    assert any(note.kind == "read" and "worker.ts:7 inserts into files.r2_key the name (key) the code puts an R2 object of FILES under"
               in note.text for note in draft.notes)


def test_the_example_requests_go_to_the_paths_as_the_router_mounts_them(tmp_path):
    """A Hono app mounting its API router under /api: the example request is POST /api/orders,
    and the note says where the prefix was read."""
    worker = """
import { Hono } from "hono";
import api from "./api";
const app = new Hono();
app.route("/api", api);
export default app;
"""
    api = """
import { Hono } from "hono";
const api = new Hono();
api.post("/orders", async (c) => c.json(await c.req.json<{ orderId: string }>()));
export default api;
"""
    draft = draft_worker(_project(tmp_path / "w", {"name": "shop"}, worker=worker, files={"api.ts": api}))
    assert ({"method": "POST", "path": "/api/orders", "body": {"orderId": ""}},) == draft.example_events
    assert any(note.kind == "read" and "/api/orders (api.ts:4, mounted at worker.ts:5)" in note.text for note in draft.notes)


def test_the_objects_the_schemas_seeded_rows_name_are_seeded_in_the_bucket(tmp_path):
    """The schema inserts a row naming files/f-0 in the column the references example reads:
    the bucket starts with that object (an empty body, a noted guess), so the example holds on
    a run nothing went wrong in."""
    schema = "CREATE TABLE files (id TEXT, r2_key TEXT);\nINSERT INTO files (id, r2_key) VALUES ('f-0', 'files/f-0'), ('f-''1', 'files/f-''1');\n"
    draft = draft_worker(_project(tmp_path / "w", FILES_CONFIG, worker=FILES_WORKER, files={"schema.sql": schema}))
    assert {"kind": "r2_bucket", "binding": "FILES", "objects": {"files/f-0": "", "files/f-'1": ""}} in draft.setup
    assert """        r2_bucket("FILES", {"files/f-0": "", "files/f-'1": ""}),""" in draft.source.splitlines()
    assert any(note.kind == "guess" and "R2 binding FILES: the rows D1's schema seeds name objects (files/f-0, files/f-'1)" in note.text
               for note in draft.notes)
    prepare_worker(load_scenario(_filled(draft)))


def _filled(draft) -> Path:
    """The draft written with its example events and every example invariant filled in."""
    path = write_draft(draft)
    path.write_text(fill(draft.source, json.dumps(list(draft.example_events)), ",\n".join(e.rstrip(",") for e in draft.example_invariants)))
    return path


def test_a_table_the_code_only_updates_is_noted_for_its_rows(tmp_path):
    """UPDATE orders with no INSERT into it and no row seeded by the schema: every run starts it
    empty, so the note asks for the rows (a table the schema seeds is not noted)."""
    worker = """
export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { orderId } = await request.json<{ orderId: string }>();
    await env.DB.prepare("UPDATE orders SET refunded = 1 WHERE id = ?").bind(orderId).run();
    await env.DB.prepare("DELETE FROM holds WHERE order_id = ?").bind(orderId).run();
    return new Response("ok");
  },
};
"""
    config = {"name": "refunds", "d1_databases": [{"binding": "DB", "database_name": "refunds"}]}
    schema = "CREATE TABLE orders (id TEXT, refunded INTEGER);\nCREATE TABLE holds (order_id TEXT);\nINSERT INTO holds (order_id) VALUES ('o-0');\n"
    draft = draft_worker(_project(tmp_path / "w", config, worker=worker, files={"schema.sql": schema}))
    noted = [note.text for note in draft.notes if note.kind == "unread" and "which the code never inserts" in note.text]
    assert ["D1 binding DB: worker.ts:5 changes rows of orders, which the code never inserts and the schema seeds none of: every run "
            "starts it empty, so give it the rows it expects (d1_schema(..., rows={'orders': [...]}))"] == noted


ROUTED_WORKER = """
export default {
  async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === "/about") return new Response("about");
    if (path === "/api/chat") return new Response("chat");
    return new Response("", { status: 404 });
  },
};
"""


@pytest.mark.parametrize("first", [False, True])
def test_no_example_request_or_invariant_goes_to_a_path_the_assets_serve(tmp_path, first):
    """/about is the assets' about.html: unless run_worker_first sends it to the Worker, the
    example requests leave it out and the example invariant is over /api/chat."""
    assets = {"directory": "./public", "run_worker_first": first}
    config = _project(tmp_path / "w", {"name": "site", "assets": assets}, worker=ROUTED_WORKER,
                      files={"public/about.html": "<h1>about</h1>", "public/index.html": "<h1>site</h1>"})
    draft = draft_worker(config)
    paths = [event["path"] for event in draft.example_events]
    assert (["/about", "/api/chat"] if first else ["/api/chat"]) == paths
    assert f'http_response("{paths[0]}")' in " ".join(draft.example_invariants)
    assert first != any(note.kind == "read" and note.text.startswith("the assets answer /about before the Worker") for note in draft.notes)


def test_a_worker_behind_assets_with_no_route_read_leaves_the_request_to_its_hole(tmp_path):
    """The code compares no path and the assets serve /: no example request or invariant on it, a note says why."""
    worker = "export default { async fetch(request: Request) { return new Response(await request.text()); } };\n"
    config = _project(tmp_path / "w", {"name": "site", "assets": {"directory": "./public"}}, worker=worker,
                      files={"public/index.html": "<h1>site</h1>"})
    draft = draft_worker(config)
    assert () == draft.example_events
    assert () == draft.example_invariants
    assert any(note.kind == "read" and note.text.startswith("the assets answer / before the Worker") for note in draft.notes)
    assert "from eutaxy.cloudflare import (" in draft.source and "http_response" in draft.source.split("# Notes")[0]


def test_route_parameters_get_example_values_in_the_example_requests(tmp_path):
    """/tasks/:id and /posts/:slug as Hono writes them: the example requests carry values, noted as a guess."""
    worker = """
import { Hono } from "hono";
const app = new Hono();
app.get("/tasks/:id", (c) => c.text("task"));
app.get("/posts/:slug", (c) => c.text("post"));
export default app;
"""
    draft = draft_worker(_project(tmp_path / "w", {"name": "tasks"}, worker=worker))
    assert [{"method": "GET", "path": "/tasks/1"}, {"method": "GET", "path": "/posts/slug-1"}] == list(draft.example_events)
    assert any(note.kind == "guess" and "route parameters of /posts/:slug, /tasks/:id" in note.text for note in draft.notes)


def test_a_service_binding_is_scripted_with_a_hole_per_method_the_worker_calls(tmp_path):
    """service(...) for ORDERS, a hole for each method the code calls through it and one for its fetch();
    filled, the draft loads and prepares."""
    worker = QUEUE_WORKER.replace(
        "      message.ack();",
        "      await env.ORDERS.reserve(message.body.jobId);\n      await this.env.ORDERS.release(message.body.jobId);\n"
        "      await env.ORDERS.reserve(message.body.jobId);\n      await env.ORDERS.fetch('https://orders/ping');\n      message.ack();",
    )
    config = _project(tmp_path / "w", _config(services=[{"binding": "ORDERS", "service": "orders"}]), worker=worker, files={"schema.sql": SCHEMA, **DEV_VARS})
    draft = draft_worker(config)
    assert {"kind": "service", "binding": "ORDERS", "methods": {}, "fetch": []} == draft.setup[-1]
    assert ["events", "ORDERS.reserve", "ORDERS.release", "ORDERS.fetch", "invariants"] == [hole["name"] for hole in draft.holes]
    lines = draft.source.splitlines()
    start = lines.index('        service("ORDERS", methods={')
    assert lines[start + 1].startswith('            "reserve": todo("ORDERS.reserve", "what Worker orders answers reserve(): a JSON value, or service_error(')
    assert lines[start + 3].startswith('        }, fetch=todo("ORDERS.fetch", ')
    assert ("guess", "service binding ORDERS (Worker orders) is scripted, never called: the Worker calls reserve(), release(), fetch() "
            "through it; give each the reply the callee gives") in [(note.kind, note.text) for note in draft.notes]
    source = re.sub(r'todo\("ORDERS.reserve", "[^"]*"\)', '{"held": True}', draft.source)
    source = re.sub(r'todo\("ORDERS.release", "[^"]*"\)', "None", source)
    source = re.sub(r'todo\("ORDERS.fetch", "[^"]*"\)', '[{"method": "GET", "path": "/ping"}]', source)
    written = tmp_path / "w" / "jobs.sim.py"
    written.write_text(fill(source, '[{"body": {"jobId": "j-1", "attempt": 1}}]', 'at_most_once_per_key("one-write-per-job", d1_write("DB"), d1_param(0))'))
    scenario = load_scenario(written)
    [step] = [step for step in scenario["setup"] if step["kind"] == "service"]
    assert {"reserve": {"value": {"held": True}}, "release": {"value": None}} == step["methods"]
    prepare_worker(scenario)
