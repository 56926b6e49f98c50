// @ts-check
/**
 * The differential runner's raw side (raw.mjs) through the host's `raw_run` op: each step of
 * the engine's raw loop (reset, one attempt, snapshot) on the payments fixture's handler and
 * its real D1 binding, and a cron tick's attempt on the cron fixture's scheduled(). The loop itself (which messages go next, which decision counts, the
 * redelivery rule) is the engine's and is tested there (packages/engine/tests/test_differential.py).
 */

import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";

import { FIXTURES, fixtureLoad, paymentsLoad, paymentsPlan, useHost } from "./helpers.mjs";

const host = useHost(paymentsLoad());
const cronHost = useHost(fixtureLoad(path.join(FIXTURES, "cron"), { d1Databases: { DB: "cron-db" } }));

/** @param {object} request */
async function raw(request, on = host) {
  return (await on.ok({ op: "raw_run", request: { protocol: 3, ...request } })).result;
}

/** One attempt of a tick of `cron` (the cron fixture's expression picks what scheduled() does). @param {string} cron */
function tick(cron, scheduledTime = 1767225900000, invocation = "tick-2#1") {
  return raw({ op: "tick", invocation, hangMs: 5000, tick: { id: invocation.split("#")[0], scheduledTime, cron } }, cronHost);
}

/** @param {string} invocation @param {{id: string, body: unknown, attempts?: number}[]} messages */
function attempt(invocation, messages, hangMs = 5000) {
  return raw({
    op: "attempt", queue: "payments", invocation, hangMs,
    messages: messages.map((message) => ({ attempts: 1, ...message })),
  });
}

/** @param {any} snapshot @param {string} table */
function rows(snapshot, table) {
  return snapshot.snapshots.find((/** @type {any} */ s) => s.target === "D1:DB" && s.table === table).rows;
}

test("reset empties every table, an attempt writes through the real binding, snapshot reads every table", async () => {
  for (let i = 0; i < 2; i++) {
    assert.deepEqual(await raw({ op: "reset" }), { protocol: 3 });
    const answer = await attempt("msg-1#1", [{ id: "msg-1", body: { orderId: "o-1", amountCents: 1200 } }]);
    // No explicit decision: the engine's loop reads the implicit ack from `returned`.
    assert.deepEqual(answer, { protocol: 3, outcome: "returned", calls: [] });
    const snapshot = await raw({ op: "snapshot" });
    // The reset before each run leaves one payment, never two.
    assert.deepEqual(rows(snapshot, "payments").map((/** @type {any} */ r) => r.order_id), ["o-1"]);
    assert.deepEqual(snapshot.snapshots.map((/** @type {any} */ s) => s.table), ["audit", "payments"]);
  }
});

test("an attempt reports every call in order, repeats included, and a throw as threw", async () => {
  await raw({ op: "reset" });
  const twice = await attempt("t#1", [{ id: "t", body: { orderId: "o-2", amountCents: 2, decide: "ack-twice" } }]);
  assert.deepEqual(twice.calls, [{ messageId: "t", op: "ack" }, { messageId: "t", op: "ack" }]);
  const retried = await attempt("m#2", [{ id: "m", body: { orderId: "o-1", amountCents: 1, decide: "retry" }, attempts: 2 }]);
  assert.deepEqual([retried.outcome, retried.calls], ["returned", [{ messageId: "m", op: "retry" }]]);
  const all = await attempt("a#1", [
    { id: "a", body: { orderId: "o-3", amountCents: 3, decide: "ack-all" } },
    { id: "b", body: { orderId: "o-4", amountCents: 4 } },
  ]);
  assert.deepEqual(all.calls, [{ messageId: "a", op: "ack" }, { messageId: "b", op: "ack" }]);
  const threw = await attempt("f#1", [{ id: "f", body: { orderId: "o-5", amountCents: 5, fail: true } }]);
  assert.deepEqual([threw.outcome, threw.calls], ["threw", []]);
  // The write before the throw committed: the raw side is the real binding.
  assert.ok(rows(await raw({ op: "snapshot" }), "payments").some((/** @type {any} */ r) => r.order_id === "o-5"));
});

test("raw steps leave the globals alone and proxied runs work around them", async () => {
  const proxied = await host.run(paymentsPlan());
  assert.deepEqual(proxied.end, { kind: "completed" });
  await raw({ op: "reset" });
  await attempt("msg-1#1", [{ id: "msg-1", body: { orderId: "o-9", amountCents: 9 } }]);
  assert.deepEqual((await host.ok({ op: "probe" })).result.patched, []);
  const again = await host.run(paymentsPlan());
  assert.deepEqual(again, proxied);
});

test("a request of another protocol or op is refused", async () => {
  const old = await host.request({ op: "raw_run", request: { protocol: 1, op: "reset" } });
  assert.equal(old.ok, false);
  assert.match(old.error, /protocol version 1, expected 3/);
  const unknown = await host.request({ op: "raw_run", request: { protocol: 3, op: "run" } });
  assert.equal(unknown.ok, false);
  assert.match(unknown.error, /unknown op "run"/);
  const empty = await host.request({ op: "raw_run", request: { protocol: 3, op: "attempt", queue: "payments", invocation: "x#1", messages: [], hangMs: 10 } });
  assert.equal(empty.ok, false);
});

test("a tick attempt calls scheduled() with the tick's controller and reports noRetry() as a call", async () => {
  await raw({ op: "reset" }, cronHost);
  assert.deepEqual(await tick("*/5 * * * *"), { protocol: 3, outcome: "returned", calls: [] });
  assert.deepEqual(await tick("fail"), { protocol: 3, outcome: "threw", calls: [] });
  assert.deepEqual(await tick("no-retry", 1767226200000, "tick-3#1"), { protocol: 3, outcome: "threw", calls: [{ messageId: "tick-3", op: "no_retry" }] });
  // The waitUntil work is awaited before the answer: its row is there.
  assert.deepEqual(await tick("later"), { protocol: 3, outcome: "returned", calls: [] });
  const seen = rows(await raw({ op: "snapshot" }, cronHost), "ticks").sort((/** @type {any} */ a, /** @type {any} */ b) => a.id - b.id)
    .map((/** @type {any} */ r) => [r.scheduled_time, r.cron]);
  // scheduledTime is the request's (a virtual time), not the real clock's.
  assert.deepEqual(seen, [
    [1767225900000, "*/5 * * * *"], [1767225900000, "fail"], [1767226200000, "no-retry"], [1767225900000, "later"], [1767225900000, "background"],
  ]);
});

test("a tick for a Worker without scheduled() is the user's to fix, a tick without its time Eutaxy's bug", async () => {
  const none = await host.request({ op: "raw_run", request: { protocol: 3, op: "tick", invocation: "tick-1#1", hangMs: 100, tick: { id: "tick-1", scheduledTime: 0, cron: "* * * * *" } } });
  assert.deepEqual([none.ok, none.user, none.error], [false, true, "the Worker's default export has no scheduled() handler"]);
  const untimed = await cronHost.request({ op: "raw_run", request: { protocol: 3, op: "tick", invocation: "tick-1#1", hangMs: 100, tick: { id: "tick-1", cron: "* * * * *" } } });
  assert.equal(untimed.ok, false);
  assert.match(untimed.error, /a tick \{id, scheduledTime, cron\}/);
});

// Last on purpose: the hung handler's timer still fires after the answer and then writes,
// so no test after it may read the tables.
test("an attempt that outlasts hangMs is hung", async () => {
  await raw({ op: "reset" });
  const answer = await attempt("s#1", [{ id: "s", body: { orderId: "o-1", amountCents: 1, sleepMs: 2000 } }], 50);
  assert.equal(answer.outcome, "hung");
  assert.match(answer.detail, /s#1 did not finish within 50 ms/);
});
