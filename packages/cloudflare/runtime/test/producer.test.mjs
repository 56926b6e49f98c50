// @ts-check
/**
 * Queue producers (bindings/queue_producer.mjs, producer.mjs) on a real Miniflare through the
 * host: send and sendBatch as write effects with each fault, delivery of a message produced
 * onto the queue the Worker consumes (with its redelivery and its delay in virtual time), the
 * snapshot of a queue it does not consume, and the run's bound on produced messages.
 */

import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";

import { FIXTURES, drivePlan, fixtureLoad, useHost } from "./helpers.mjs";

const FIXTURE = path.join(FIXTURES, "producer");
const EPOCH = 1767225600000;

const host = useHost(fixtureLoad(FIXTURE, {
  d1Databases: { DB: "producer-db" },
  queueConsumers: { jobs: { maxRetries: 3, retryDelaySeconds: 0, maxBatchSize: 1 } },
  queueProducers: { JOBS: { queue: "jobs", deliveryDelaySeconds: 0 }, AUDIT: { queue: "audit", deliveryDelaySeconds: 0 } },
}));

/**
 * @param {{events: any[], policy?: object, bounds?: object, maxFaults?: number, retries?: number}} options
 */
function plan(options) {
  return drivePlan({
    seed: "test",
    name: "producer",
    drive: { kind: "http", name: "http", events: options.events, caller: { retries: options.retries ?? 0, retryOn: "non-2xx", delaysMs: [], deadlineMs: null } },
    bounds: { maxFaultsPerRun: 1, maxRedeliveries: 3, maxConcurrentInvocations: 1, budgetMs: 5000, effectHangMs: 5000, producedMessagesMax: 100, ...(options.bounds ?? {}) },
    policy: options.policy,
    maxFaults: options.maxFaults ?? 1,
  });
}

/** @param {string} id @param {string} p @param {unknown} [body] */
function req(id, p, body = { orderId: "o-1", amountCents: 100 }) {
  return { id, method: "POST", path: p, headers: {}, body };
}

/** @param {string} invocation @param {number} ordinal @param {string} fault */
function replay(invocation, ordinal, fault) {
  return { kind: "replay", faults: [{ invocation, ordinal, fault }], turns: [], batches: [] };
}

/** @param {any[]} effects */
function brief(effects) {
  return effects.filter((e) => e.kind !== "snapshot").map((e) => `${e.invocation}/${e.ordinal} ${e.target} ${e.op} ${e.kind}${e.kind === "fault" ? ":" + e.payload.fault : ""}`);
}

/** @param {any[]} effects @param {string} target @param {string} table */
function rows(effects, target, table) {
  return effects.find((e) => e.kind === "snapshot" && e.target === target && e.op === table)?.payload.rows;
}

/** @param {any[]} effects */
function status(effects) {
  return effects.filter((e) => e.op === "response" && e.kind === "result").map((e) => e.payload.result.status);
}

test("send is a write effect; the message is delivered to the Worker's own consumer later in the run", async () => {
  const result = await host.runCompleted(plan({ events: [req("req-1", "/send")] }));
  assert.deepEqual(brief(result.effects), [
    "req-1#1/0 Queue:jobs send call",
    "req-1#1/0 Queue:jobs send result",
    "req-1#1/1 Http:/send response call",
    "req-1#1/1 Http:/send response result",
    "req-1#1/sent-1#1/0 D1:DB run call",
    "req-1#1/sent-1#1/0 D1:DB run result",
    "req-1#1/sent-1#1/1 Queue:jobs ack call",
    "req-1#1/sent-1#1/1 Queue:jobs ack result",
  ]);
  const sent = result.effects.find((/** @type {any} */ e) => e.op === "send" && e.kind === "result");
  assert.deepEqual(sent.payload, { args: { body: { orderId: "o-1", amountCents: 100 }, delaySeconds: 0 }, result: { messageIds: ["req-1#1/sent-1"] } });
  assert.deepEqual(rows(result.effects, "D1:DB", "orders"), [{ id: 1, order_id: "o-1", amount_cents: 100 }]);
  // The consumed queue has no snapshot table; only a queue the Worker does not consume has.
  assert.equal(rows(result.effects, "Queue:jobs", "messages"), undefined);
  assert.deepEqual(rows(result.effects, "Queue:audit", "messages"), []);
});

test("sendBatch is one point: its messages are sent all or none", async () => {
  const none = await host.run(plan({ events: [req("req-1", "/batch")], policy: replay("req-1#1", 0, "error") }));
  assert.deepEqual(brief(none.effects), [
    "req-1#1/0 Queue:jobs sendBatch call",
    "req-1#1/0 Queue:jobs sendBatch fault:error",
    "req-1#1/1 Http:/batch response call",
    "req-1#1/1 Http:/batch response result",
    "req-1#1/2 Http:/batch gave_up call",
    "req-1#1/2 Http:/batch gave_up result",
  ]);
  assert.deepEqual(status(none.effects), [503]);
  assert.deepEqual(rows(none.effects, "D1:DB", "orders"), []);

  const all = await host.run(plan({ events: [req("req-1", "/batch")], policy: replay("req-1#1", 0, "crash_after") }));
  const sent = all.effects.find((/** @type {any} */ e) => e.op === "sendBatch" && e.kind === "result");
  assert.deepEqual(sent.payload.args, { messages: [{ body: { orderId: "o-1", amountCents: 100 }, delaySeconds: 0 }, { body: { orderId: "o-1-b", amountCents: 100 }, delaySeconds: 5 }] });
  assert.deepEqual(sent.payload.result, { messageIds: ["req-1#1/sent-1", "req-1#1/sent-2"] });
  assert.deepEqual(rows(all.effects, "D1:DB", "orders").map((/** @type {any} */ r) => r.order_id), ["o-1", "o-1-b"]);
  // The crashed request never answered; its messages were sent all the same.
  assert.deepEqual(status(all.effects), []);
});

test("each fault of the write ladder at send", async () => {
  /** @param {string} fault */
  const outcome = async (fault) => {
    const result = await host.runCompleted(plan({ events: [req("req-1", "/send")], policy: replay("req-1#1", 0, fault) }));
    return { status: status(result.effects), orders: rows(result.effects, "D1:DB", "orders").length };
  };
  // Not sent: the invocation died before it, or the Worker got an error and answered 503.
  assert.deepEqual(await outcome("crash_before"), { status: [], orders: 0 });
  assert.deepEqual(await outcome("error"), { status: [503], orders: 0 });
  // Sent: the invocation died after it, or the Worker got an error anyway (a lost answer).
  assert.deepEqual(await outcome("crash_after"), { status: [], orders: 1 });
  assert.deepEqual(await outcome("ambiguous"), { status: [503], orders: 1 });
});

test("a produced message the consumer fails is redelivered under its own invocation ids", async () => {
  const result = await host.run(plan({ events: [req("req-1", "/send", { orderId: "o-1", amountCents: 100, failOnce: true })] }));
  const invocations = [...new Set(result.effects.filter((/** @type {any} */ e) => e.kind !== "snapshot").map((/** @type {any} */ e) => e.invocation))];
  assert.deepEqual(invocations, ["req-1#1", "req-1#1/sent-1#2"]);
  assert.deepEqual(rows(result.effects, "D1:DB", "orders").length, 1);
  // A fault in the delivery is keyed by the produced message's invocation and is followed.
  const crashed = await host.run(plan({ events: [req("req-1", "/send")], policy: replay("req-1#1/sent-1#1", 0, "crash_after") }));
  assert.ok(brief(crashed.effects).includes("req-1#1/sent-1#1/0 D1:DB run fault:crash_after"));
  assert.ok(brief(crashed.effects).includes("req-1#1/sent-1#2/0 D1:DB run result"));
  assert.equal(rows(crashed.effects, "D1:DB", "orders").length, 2);
});

test("a chain of produced messages is delivered in order, each its own event", async () => {
  const result = await host.run(plan({ events: [req("req-1", "/send", { orderId: "o", amountCents: 1, chain: 2 })] }));
  assert.deepEqual(rows(result.effects, "D1:DB", "orders").map((/** @type {any} */ r) => r.order_id), ["o", "o+", "o++"]);
  const starts = [...new Set(result.effects.map((/** @type {any} */ e) => e.invocation))];
  assert.deepEqual(starts, ["req-1#1", "req-1#1/sent-1#1", "req-1#1/sent-1#1/sent-1#1", "req-1#1/sent-1#1/sent-1#1/sent-1#1", "snapshot"]);
});

/** @param {any} result the invocations in the order they first recorded */
function invocations(result) {
  return [...new Set(result.effects.filter((/** @type {any} */ e) => e.kind !== "snapshot").map((/** @type {any} */ e) => e.invocation))];
}

test("a message due now goes before the drive's next event; a delayed one waits in virtual time", async () => {
  const now = await host.run(plan({ events: [req("req-1", "/send"), req("req-2", "/send", { orderId: "o-2", amountCents: 2 })] }));
  assert.deepEqual(invocations(now), ["req-1#1", "req-1#1/sent-1#1", "req-2#1", "req-2#1/sent-1#1"]);
  const result = await host.run(plan({ events: [req("req-1", "/delayed"), req("req-2", "/send", { orderId: "o-2", amountCents: 2 })] }));
  assert.deepEqual(invocations(result), ["req-1#1", "req-2#1", "req-2#1/sent-1#1", "req-1#1/sent-1#1"]);
  const sentAt = result.effects.find((/** @type {any} */ e) => e.invocation === "req-1#1" && e.op === "send").time;
  const delivered = result.effects.find((/** @type {any} */ e) => e.invocation === "req-1#1/sent-1#1").time;
  assert.equal(delivered, sentAt + 30_000);
  assert.ok(sentAt >= EPOCH);
});

test("messages onto a queue the Worker does not consume are its snapshot rows", async () => {
  const result = await host.run(plan({ events: [req("req-1", "/audit")] }));
  assert.deepEqual(rows(result.effects, "Queue:audit", "messages"), [
    { messageId: "req-1#1/sent-1", body: { audited: "o-1" }, delaySeconds: 0 },
    { messageId: "req-1#1/sent-2", body: "first", contentType: "text", delaySeconds: 0 },
    { messageId: "req-1#1/sent-3", body: [1, 2], delaySeconds: 0 },
  ]);
  // An error at the send keeps the message out of the rows.
  const failed = await host.run(plan({ events: [req("req-1", "/audit")], policy: replay("req-1#1", 0, "error") }));
  assert.deepEqual(rows(failed.effects, "Queue:audit", "messages"), []);
});

test("bodies: json goes through JSON; text must be a string; dates, maps and bytes are plain data; a function is UNSUPPORTED", async () => {
  const json = await host.run(plan({ events: [req("req-1", "/send-json")] }));
  const sent = json.effects.find((/** @type {any} */ e) => e.op === "send" && e.kind === "call");
  assert.deepEqual(sent.payload.args, { body: { orderId: "o-1", amountCents: 100, at: "1970-01-01T00:00:00.000Z" }, contentType: "json", delaySeconds: 0 });
  const text = await host.run(plan({ events: [req("req-1", "/text-number")] }));
  // The runtime's own TypeError: no effect point, the Worker answers 503.
  assert.deepEqual(brief(text.effects).slice(0, 2), ["req-1#1/0 Http:/text-number response call", "req-1#1/0 Http:/text-number response result"]);
  assert.deepEqual(status(text.effects), [503]);
  const date = await host.runCompleted(plan({ events: [req("req-1", "/date")] }));
  assert.deepEqual(rows(date.effects, "Queue:audit", "messages"), [
    { messageId: "req-1#1/sent-1", body: { $: "date", v: "1970-01-01T00:00:00.000Z" }, delaySeconds: 0 },
    { messageId: "req-1#1/sent-2", body: { $: "map", v: [["k", { $: "bytes", v: "AQ==" }]] }, delaySeconds: 0 },
  ]);
  const fn = await host.run(plan({ events: [req("req-1", "/function")] }));
  assert.equal(fn.end.kind, "unsupported");
  assert.equal(fn.end.cause, "message_not_plain");
  assert.match(fn.end.detail, /req-1#1 sent a message body that is not plain data \(body\.run is a function\)/);
});

test("more produced messages than producedMessagesMax make the run UNSUPPORTED", async () => {
  const within = await host.runCompleted(plan({ events: [req("req-1", "/many")], bounds: { producedMessagesMax: 3 } }));
  const beyond = await host.run(plan({ events: [req("req-1", "/many")], bounds: { producedMessagesMax: 2 } }));
  assert.equal(beyond.end.kind, "unsupported");
  assert.equal(beyond.end.cause, "produced_message_limit");
  assert.match(beyond.end.detail, /req-1#1 sent message 3 of the run .*beyond bounds.producedMessagesMax \(2\)/);
});

test("a producer property the model lacks (metrics()) is UNSUPPORTED even when the Worker catches; looking is not", async () => {
  const metrics = await host.run(plan({ events: [req("req-1", "/metrics")] }));
  assert.equal(metrics.end.kind, "unsupported");
  assert.equal(metrics.end.cause, "binding_not_modelled");
  assert.match(metrics.end.detail, /queue producer binding JOBS: \.metrics is not modelled/);
  const inspect = await host.runCompleted(plan({ events: [req("req-1", "/inspect")] }));
  assert.deepEqual(status(inspect.effects), [202]);
});
