// @ts-check
/**
 * The differential runner's raw side (raw.mjs) through the host's `raw_run` op: the payments
 * fixture's handler on the real D1 binding, with the redelivery decisions handed in.
 */

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { HostProcess, paymentsLoad, paymentsPlan } from "./helpers.mjs";

/** @type {HostProcess} */
let host;

before(async () => {
  host = new HostProcess();
  await host.ok(paymentsLoad());
});

after(async () => {
  await host.close();
});

/** @param {{id: string, body: unknown}[]} events @param {boolean[]} redelivery */
function rawRequest(events, redelivery) {
  const { scenario } = paymentsPlan({ events });
  return { op: "raw_run", request: { protocol: 1, scenario, redelivery } };
}

/** @param {any} result @param {string} table */
function rows(result, table) {
  return result.snapshots.find((/** @type {any} */ s) => s.target === "D1:DB" && s.table === table).rows;
}

test("a raw run acks implicitly, resets D1 first and snapshots every table", async () => {
  const events = [{ id: "msg-1", body: { orderId: "o-1", amountCents: 1200 } }];
  for (let i = 0; i < 2; i++) {
    const { result } = await host.ok(rawRequest(events, [true, false]));
    assert.deepEqual(result.end, { kind: "completed" });
    assert.deepEqual(result.attempts, [{
      invocation: "msg-1#1", messages: ["msg-1"], outcome: "returned",
      decisions: [{ messageId: "msg-1", op: "ack", implicit: true }], redelivered: [], deadLettered: [],
    }]);
    // The reset before each run leaves one payment, never two.
    assert.deepEqual(rows(result, "payments").map((/** @type {any} */ r) => r.order_id), ["o-1"]);
    assert.deepEqual(result.snapshots.map((/** @type {any} */ s) => s.table), ["audit", "payments"]);
  }
});

test("a message the handler fails on is redelivered exactly as the table it was handed says", async () => {
  const events = [{ id: "msg-1", body: { orderId: "o-1", amountCents: 1200, fail: true } }];
  for (const table of [[false], [true, false], [true, true, true, false]]) {
    const { result } = await host.ok(rawRequest(events, table));
    const invocations = result.attempts.map((/** @type {any} */ a) => a.invocation);
    assert.equal(invocations.length, table.length);
    assert.deepEqual(invocations, table.map((_, i) => `msg-1#${i + 1}`));
    assert.deepEqual(result.attempts.at(-1).deadLettered, [{ messageId: "msg-1", attempts: table.length }]);
    assert.equal(rows(result, "payments").length, table.length);
  }
});

test("the first decision per message wins and a retry is redelivered", async () => {
  const events = [{ id: "m", body: { orderId: "o-1", amountCents: 1, decide: "retry" } }];
  const { result } = await host.ok(rawRequest(events, [true, false]));
  assert.deepEqual(result.attempts.map((/** @type {any} */ a) => [a.invocation, a.decisions.map((/** @type {any} */ d) => d.op), a.redelivered]), [
    ["m#1", ["retry"], ["m"]],
    ["m#2", ["retry"], []],
  ]);
  assert.deepEqual(result.attempts[1].deadLettered, [{ messageId: "m", attempts: 2 }]);
  const twice = await host.ok(rawRequest([{ id: "t", body: { orderId: "o-2", amountCents: 2, decide: "ack-twice" } }], [false]));
  // Two explicit acks: one decision (the first), and no implicit ack after it.
  assert.deepEqual(twice.result.attempts[0].decisions, [{ messageId: "t", op: "ack", implicit: false }]);
});

test("raw runs leave the globals alone and proxied runs work around them", async () => {
  const proxied = await host.run(paymentsPlan());
  assert.deepEqual(proxied.end, { kind: "completed" });
  await host.ok(rawRequest([{ id: "msg-1", body: { orderId: "o-9", amountCents: 9 } }], [false]));
  assert.deepEqual((await host.ok({ op: "probe" })).result.patched, []);
  const again = await host.run(paymentsPlan());
  assert.deepEqual(again, proxied);
});

test("a request without the redelivery table is refused, and a Worker error is the user's", async () => {
  const { scenario } = paymentsPlan();
  const missing = await host.request({ op: "raw_run", request: { protocol: 1, scenario } });
  assert.equal(missing.ok, false);
  assert.match(missing.error, /redelivery/);
  const http = await host.request({ op: "raw_run", request: { protocol: 1, scenario: { ...scenario, drive: { kind: "http", events: [] } }, redelivery: [false] } });
  assert.equal(http.ok, false);
  assert.equal(http.user, true);
});
