// @ts-check
/**
 * The differential runner's raw side (raw.mjs) through the host's `raw_run` op: each step of
 * the engine's raw loop (reset, one attempt, snapshot) on the payments fixture's handler and
 * its real D1 binding. The loop itself (which messages go next, which decision counts, the
 * redelivery rule) is the engine's and is tested there (packages/engine/tests/test_differential.py).
 */

import assert from "node:assert/strict";
import { test } from "node:test";

import { paymentsLoad, paymentsPlan, useHost } from "./helpers.mjs";

const host = useHost(paymentsLoad());

/** @param {object} request */
async function raw(request) {
  return (await host.ok({ op: "raw_run", request: { protocol: 2, ...request } })).result;
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
    assert.deepEqual(await raw({ op: "reset" }), { protocol: 2 });
    const answer = await attempt("msg-1#1", [{ id: "msg-1", body: { orderId: "o-1", amountCents: 1200 } }]);
    // No explicit decision: the engine's loop reads the implicit ack from `returned`.
    assert.deepEqual(answer, { protocol: 2, outcome: "returned", calls: [] });
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
  assert.match(old.error, /protocol version 1, expected 2/);
  const unknown = await host.request({ op: "raw_run", request: { protocol: 2, op: "run" } });
  assert.equal(unknown.ok, false);
  assert.match(unknown.error, /unknown op "run"/);
  const empty = await host.request({ op: "raw_run", request: { protocol: 2, op: "attempt", queue: "payments", invocation: "x#1", messages: [], hangMs: 10 } });
  assert.equal(empty.ok, false);
});

// Last on purpose: the hung handler's timer still fires after the answer and then writes,
// so no test after it may read the tables.
test("an attempt that outlasts hangMs is hung", async () => {
  await raw({ op: "reset" });
  const answer = await attempt("s#1", [{ id: "s", body: { orderId: "o-1", amountCents: 1, sleepMs: 2000 } }], 50);
  assert.equal(answer.outcome, "hung");
  assert.match(answer.detail, /s#1 did not finish within 50 ms/);
});
