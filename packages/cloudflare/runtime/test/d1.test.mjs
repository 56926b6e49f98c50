// @ts-check
/**
 * The D1 proxy on a real Miniflare database: every method is one effect with the payload
 * the conventions give, the Worker gets back what D1 returns (timings zeroed), batches are
 * all-or-nothing, and the reset drops whatever the last run left.
 */

import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";

import { isRead, splitSchema } from "../d1.mjs";
import { FIXTURES, consumerKind, fixtureLoad, kinds, paymentsPlan, platformLadders, useHost } from "./helpers.mjs";

const FIXTURE = path.join(FIXTURES, "d1-api");

const host = useHost(fixtureLoad(FIXTURE, { d1Databases: { DB: "api-db" }, queueConsumers: { jobs: { maxRetries: 3, retryDelaySeconds: 0, maxBatchSize: 1 } } }));

/** @param {string} step @param {object} [options] */
function plan(step, options = {}) {
  const base = paymentsPlan({ events: [{ id: "msg-1", body: { step } }], ...options });
  base.scenario.drive.name = "jobs";
  return base;
}

/** @param {any[]} effects @param {string} table */
function rows(effects, table) {
  return effects.find((e) => e.kind === "snapshot" && e.op === table)?.payload.rows;
}

test("statements are classified as reads or writes", () => {
  assert.equal(isRead("SELECT 1"), true);
  assert.equal(isRead("  -- a comment\n  select * from t"), true);
  assert.equal(isRead("/* c */ WITH x AS (SELECT 1) SELECT * FROM x"), true);
  assert.equal(isRead("WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x"), false);
  assert.equal(isRead("INSERT INTO t VALUES (1)"), false);
  assert.equal(isRead("PRAGMA table_info(t)"), false);
});

test("a schema file splits on semicolons at line ends only", () => {
  assert.deepEqual(splitSchema("-- head\nCREATE TABLE a (x TEXT DEFAULT ';');\n\nINSERT INTO a VALUES ('x;y');  \n-- tail\n"), [
    "-- head\nCREATE TABLE a (x TEXT DEFAULT ';')", "INSERT INTO a VALUES ('x;y')",
  ]);
});

test("every D1 method is one effect with its payload, and the Worker gets D1's answers", async () => {
  const result = await host.runCompleted(plan("every-method"));
  const results = result.effects.filter((/** @type {any} */ e) => e.kind === "result" && e.target === "D1:DB");
  assert.deepEqual(results.map((/** @type {any} */ e) => e.op), ["batch", "first", "all", "raw", "exec", "first", "run"]);
  const [batch, first, all, raw, exec, returning] = results;
  assert.deepEqual(batch.payload.args.statements.map((/** @type {any} */ s) => s.params), [["o-1", "c-1", 150], ["o-2", "c-1", 50]]);
  assert.deepEqual(batch.payload.result, { changes: 2, lastRowId: 2, results: [{ changes: 1, lastRowId: 1 }, { changes: 1, lastRowId: 2 }] });
  assert.deepEqual(first.payload, { args: { sql: "SELECT name FROM customers WHERE id = ?", params: ["c-1"] }, result: { rows: [{ name: "Ada" }] } });
  assert.deepEqual(all.payload.result, { rows: [{ id: "o-1" }] });
  assert.deepEqual(raw.payload.result, { rows: [["o-1", 150], ["o-2", 50]] });
  assert.deepEqual(exec.payload, { args: { sql: "UPDATE customers SET name = 'Ada L' WHERE id = 'c-1'", params: [] }, result: { count: 1 } });
  assert.deepEqual(returning.payload.result, { changes: 1, lastRowId: 3, rows: [{ id: "o-3" }] });
  // Ladders: writes (batch, exec, the insert) take four faults, reads three.
  assert.deepEqual(result.decisions.map((/** @type {any} */ d) => d.options.length - 1), [4, 3, 3, 3, 4, 4, 4]);
  const seen = JSON.parse(rows(result.effects, "seen")[0].what);
  assert.deepEqual(seen, {
    batchChanges: [1, 1], name: "Ada", big: [{ id: "o-1" }], raw: [["o-1", 150], ["o-2", 50]],
    execCount: 1, execDuration: 0, duration: 0, returning: { id: "o-3" },
  });
  assert.deepEqual(rows(result.effects, "customers"), [{ id: "c-1", name: "Ada L" }]);
  assert.equal(rows(result.effects, "big_orders"), undefined, "views are not snapshotted");
});

test("a batch commits all or nothing; D1's own error is recorded as the result", async () => {
  const result = await host.run(plan("bad-batch"));
  const batch = result.effects.find((/** @type {any} */ e) => e.op === "batch" && e.kind === "result");
  assert.match(batch.payload.result.error.message, /FOREIGN KEY/);
  assert.deepEqual(JSON.parse(rows(result.effects, "seen")[0].what), { threw: true, orders: 0 });
  assert.deepEqual(rows(result.effects, "orders"), []);
});

test("a crash after a batch keeps all of it", async () => {
  const result = await host.run(plan("every-method", { policy: { kind: "replay", faults: [{ invocation: "msg-1#1", ordinal: 0, fault: "crash_after" }], turns: [], batches: [] }, bounds: { maxRedeliveries: 0 } }));
  assert.deepEqual(rows(result.effects, "orders").map((/** @type {any} */ r) => r.id), ["o-1", "o-2"]);
  // maxRedeliveries 0 stops what max_retries 3 would deliver again: a cut, not a dead letter.
  assert.ok(!result.effects.some((/** @type {any} */ e) => e.op === "dead_letter"));
  assert.deepEqual(result.cuts.map((/** @type {any} */ c) => [c.bound, c.left]), [["maxRedeliveries", ["msg-1"]]]);
});

test("the reset drops tables the last run created and restores the schema's rows", async () => {
  const created = await host.run(plan("create-table"));
  assert.deepEqual(rows(created.effects, "extra"), []);
  const next = await host.run(plan("bad-batch"));
  assert.equal(rows(next.effects, "extra"), undefined);
  assert.deepEqual(rows(next.effects, "customers"), [{ id: "c-1", name: "Ada" }]);
});

test("a table the run dropped is missing from its snapshot and back after the reset", async () => {
  await host.run(plan("bad-batch"));
  const dropped = await host.runCompleted(plan("drop-table"));
  assert.equal(rows(dropped.effects, "seen"), undefined);
  const next = await host.run(plan("bad-batch"));
  assert.equal(rows(next.effects, "seen").length, 1);
});

test("opening a raw socket makes the run UNSUPPORTED", async () => {
  const result = await host.run(plan("socket"));
  assert.equal(result.end.cause, "binding_not_allowed");
  assert.match(result.end.detail, /raw socket.*db\.internal:5432/);
});

/** A bookmark as Miniflare writes it locally, its counter `n` queries after the reset. @param {number} n */
const bookmark = (n) => `00000000-${n.toString(16).padStart(8, "0")}-00000000-${"0".repeat(32)}`;

test("a D1 session's statements and batches are the database's effect points; it reads every committed write", async () => {
  const result = await host.runCompleted(plan("session"));
  const results = result.effects.filter((/** @type {any} */ e) => e.kind === "result" && e.target === "D1:DB");
  assert.deepEqual(results.map((/** @type {any} */ e) => [e.op, e.payload.args.session]), [
    ["run", "first-primary"], ["all", "first-primary"], ["batch", "first-primary"], ["first", bookmark(1)],
    ["run", "first-unconstrained"], ["run", undefined],
  ]);
  // The same ladders as the database's own statements: a write takes four faults, a read three.
  assert.deepEqual(result.decisions.map((/** @type {any} */ d) => d.options.length - 1), [4, 3, 3, 3, 4, 4]);
  const seen = JSON.parse(rows(result.effects, "seen")[0].what);
  assert.deepEqual(seen, {
    before: null, afterWrite: bookmark(1), read: [{ id: "o-1" }], batch: [[{ n: 1 }], [{ two: 2 }]],
    resumedBefore: bookmark(1), name: "Ada", resumedAfter: bookmark(4), last: bookmark(3), failed: null,
  });
  assert.deepEqual(rows(result.effects, "orders").map((/** @type {any} */ r) => r.id), ["o-1", "o-2"]);
  // Bookmarks count from the reset, so a second run sees the same ones.
  assert.deepEqual((await host.runCompleted(plan("session"))).effects, result.effects);
});

test("a fault on a session's statement is the database's: an injected error means the write did not run", async () => {
  const faulted = (/** @type {string} */ fault) =>
    host.runCompleted(plan("session", { policy: { kind: "replay", faults: [{ invocation: "msg-1#1", ordinal: 4, fault }], turns: [], batches: [] } }));
  const error = await faulted("error");
  const seen = JSON.parse(rows(error.effects, "seen")[0].what);
  assert.match(seen.failed, /D1_ERROR: internal error \(eutaxy: error injected; the statement did not run\)/);
  assert.deepEqual(rows(error.effects, "orders").map((/** @type {any} */ r) => r.id), ["o-1"]);
  const ambiguous = await faulted("ambiguous");
  assert.match(JSON.parse(rows(ambiguous.effects, "seen")[0].what).failed, /Network connection lost/);
  assert.deepEqual(rows(ambiguous.effects, "orders").map((/** @type {any} */ r) => r.id), ["o-1", "o-2"]);
});

test("raw Miniflare gives a session the same reads and bookmarks of the same shape, offset by the database's age", async () => {
  const raw = async (/** @type {object} */ request) => (await host.ok({ op: "raw_run", request: { protocol: 3, ...request } })).result;
  const modelled = JSON.parse(rows((await host.runCompleted(plan("session"))).effects, "seen")[0].what);
  await raw({ op: "reset" });
  await raw({ op: "attempt", queue: "jobs", invocation: "msg-1#1", hangMs: 5000, messages: [{ id: "msg-1", body: { step: "session" }, attempts: 1 }] });
  const seen = JSON.parse(rows((await raw({ op: "snapshot" })).snapshots.map((/** @type {any} */ s) => ({ kind: "snapshot", op: s.table, payload: s })), "seen")[0].what);
  const counter = (/** @type {string} */ b) => parseInt(b.split("-")[1], 16);
  const offset = counter(seen.afterWrite) - counter(modelled.afterWrite);
  assert.ok(offset > 0, "Miniflare's counter lives across runs");
  for (const key of ["afterWrite", "resumedBefore", "resumedAfter", "last"]) {
    assert.equal(seen[key], bookmark(counter(modelled[key]) + offset), key);
  }
  const same = (/** @type {any} */ o) => ({ ...o, afterWrite: 0, resumedBefore: 0, resumedAfter: 0, last: 0 });
  assert.deepEqual(same(seen), same(modelled));
});

test("a Worker that is the user's to fix answers user errors; a failed bundle keeps the last Worker", async () => {
  const load = (/** @type {string} */ entry) => host.request({ op: "load", worker: { entry, root: path.dirname(entry), compatibilityDate: "2025-09-01", compatibilityFlags: [], ladders: platformLadders(), kinds: { ...kinds({ d1: { DB: ["api-db", null] } }), queue_consumer: consumerKind({ jobs: { maxRetries: 3, retryDelaySeconds: 0, maxBatchSize: 1 } }) }, specs: [], vars: {}, bindings: [], define: {}, alias: {}, rules: [], tsconfig: null, noBundle: null, accessHeaderPrefix: null, cpuLimitMs: 30000, callees: [] }, setup: [] });
  const missing = await load(path.join(FIXTURES, "broken/missing.ts"));
  assert.deepEqual([missing.ok, missing.user], [false, true]);
  assert.match(missing.error, /does not bundle: Could not resolve/);
  assert.equal((await host.run(plan("bad-batch"))).end.kind, "completed", "the loaded Worker still runs");
  const noHandler = await load(path.join(FIXTURES, "broken/no-queue-handler.ts"));
  assert.equal(noHandler.ok, true);
  const run = await host.request({ op: "run", plan: plan("bad-batch") });
  assert.deepEqual([run.ok, run.user, run.error], [false, true, "the Worker's default export has no queue() handler"]);
  const throws = await load(path.join(FIXTURES, "broken/throws-at-load.ts"));
  assert.deepEqual([throws.ok, throws.user], [false, true]);
  assert.match(throws.error, /configuration missing at load/);
  const relative = await load("fixtures/broken/no-queue-handler.ts");
  assert.match(relative.error, /absolute path/);
});
