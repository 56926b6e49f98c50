// @ts-check
/**
 * The host and the in-isolate runtime together, on a real Miniflare: a small TypeScript
 * queue consumer with D1 (the planted duplicate-payment bug's shape) loaded through the
 * host's JSON lines, run under plans as Python would send them.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { FIXTURE, paymentsLoad, paymentsPlan, useHost } from "./helpers.mjs";

const EPOCH = 1767225600000;
const INSERT_PAYMENT = "INSERT INTO payments (order_id, amount_cents) VALUES (?, ?)";
const SEED = [0x9e3779b9, 0x243f6a88, 0xb7e15162, 0x12345678];

const host = useHost(paymentsLoad());

/** @param {any[]} effects @param {string} table */
function snapshot(effects, table) {
  const found = effects.find((e) => e.kind === "snapshot" && e.op === table);
  assert.ok(found, `a snapshot of ${table}`);
  return found.payload.rows;
}

/**
 * Where in the fixture's worker.ts a call is: the line holding `line` and the column of
 * `call` in it, from 1, as V8 places a call (at the called name).
 * @param {string} line @param {string} call
 */
function where(line, call) {
  const lines = readFileSync(path.join(FIXTURE, "worker.ts"), "utf8").split("\n");
  const index = lines.findIndex((text) => text.includes(line));
  assert.ok(index >= 0, `worker.ts has a line with ${line}`);
  assert.equal(lines.filter((text) => text.includes(line)).length, 1, `one line of worker.ts has ${line}`);
  return { file: "worker.ts", line: index + 1, column: lines[index].indexOf(call, lines[index].indexOf(line)) + 1 };
}

/** @param {any[]} effects */
function brief(effects) {
  return effects.filter((e) => e.kind !== "snapshot").map((e) => `${e.invocation}/${e.ordinal} ${e.target} ${e.op} ${e.kind}${e.kind === "fault" ? ":" + e.payload.fault : ""}`);
}

test("a fault-free run records every effect point and snapshots every table", async () => {
  const result = await host.run(paymentsPlan({ globals: SEED }));
  assert.equal(result.protocol, 1);
  assert.deepEqual(result.end, { kind: "completed" });
  assert.deepEqual(brief(result.effects), [
    "msg-1#1/0 D1:DB run call", "msg-1#1/0 D1:DB run result",
    "msg-1#1/1 D1:DB run call", "msg-1#1/1 D1:DB run result",
    "msg-1#1/2 Queue:payments ack call", "msg-1#1/2 Queue:payments ack result",
    "msg-2#1/0 D1:DB run call", "msg-2#1/0 D1:DB run result",
    "msg-2#1/1 D1:DB run call", "msg-2#1/1 D1:DB run result",
    "msg-2#1/2 Queue:payments ack call", "msg-2#1/2 Queue:payments ack result",
  ]);
  const [call, committed] = result.effects;
  assert.deepEqual(call, {
    target: "D1:DB", op: "run", kind: "call", payload: { args: { sql: INSERT_PAYMENT, params: ["o-1", 1200] } }, invocation: "msg-1#1", ordinal: 0, time: EPOCH,
    source: where("await env.DB.prepare(INSERT_PAYMENT).bind(orderId", "run("),
  });
  assert.deepEqual(committed.payload.result, { changes: 1, lastRowId: 1 });
  const ack = result.effects[5];
  assert.deepEqual(ack.payload, { args: { messageId: "msg-1", body: { orderId: "o-1", amountCents: 1200 }, implicit: true }, result: { effective: true } });
  // One millisecond per completed effect point: msg-2's insert is the fourth point.
  assert.equal(result.effects[6].time, EPOCH + 3);
  // Four eligible points: the four writes (an implicit ack takes no fault).
  assert.equal(result.eligible, 4);
  assert.deepEqual(result.decisions.map((/** @type {any} */ d) => d.chosen), [0, 0, 0, 0]);
  assert.deepEqual(snapshot(result.effects, "payments"), [
    { amount_cents: 1200, id: 1, order_id: "o-1" },
    { amount_cents: 500, id: 2, order_id: "o-2" },
  ]);
  const audit = snapshot(result.effects, "audit");
  assert.equal(audit.length, 2);
  // The audit row of msg-1 was written at its second point, at virtual time EPOCH + 1.
  assert.deepEqual(audit.map((/** @type {any} */ r) => r.at).sort(), [EPOCH + 1, EPOCH + 4]);
  const snapshots = result.effects.filter((/** @type {any} */ e) => e.kind === "snapshot");
  assert.deepEqual(snapshots.map((/** @type {any} */ e) => [e.target, e.op, e.invocation, e.ordinal]), [["D1:DB", "audit", "snapshot", 0], ["D1:DB", "payments", "snapshot", 0]]);
});

test("every effect the Worker's code makes carries its line, through the bundle's source map; the platform's own carry none", async () => {
  const result = await host.run(paymentsPlan({
    events: [
      { id: "msg-1", body: { orderId: "o-1", amountCents: 1, fail: true } },
      { id: "msg-2", body: { orderId: "o-2", amountCents: 2, decide: "retry" } },
      { id: "msg-3", body: { orderId: "o-3", amountCents: 3 } },
    ],
    bounds: { maxRedeliveries: 0 },
  }));
  assert.deepEqual(result.end, { kind: "completed" });
  const sources = result.effects.filter((/** @type {any} */ e) => e.kind !== "snapshot").map((/** @type {any} */ e) => [`${e.invocation} ${e.target} ${e.op} ${e.kind}`, e.source ?? null]);
  const insert = where("await env.DB.prepare(INSERT_PAYMENT).bind(orderId", "run(");
  const audit = where("await env.DB.prepare(INSERT_AUDIT)", "run(");
  assert.deepEqual(sources, [
    ["msg-1#1 D1:DB run call", insert], ["msg-1#1 D1:DB run result", insert],
    ["msg-2#1 D1:DB run call", insert], ["msg-2#1 D1:DB run result", insert],
    ["msg-2#1 D1:DB run call", audit], ["msg-2#1 D1:DB run result", audit],
    // Made in a helper of the Worker's: the helper's line, not its caller's.
    ["msg-2#1 Queue:payments retry call", where("message.retry()", "retry(")], ["msg-2#1 Queue:payments retry result", where("message.retry()", "retry(")],
    ["msg-3#1 D1:DB run call", insert], ["msg-3#1 D1:DB run result", insert],
    ["msg-3#1 D1:DB run call", audit], ["msg-3#1 D1:DB run result", audit],
    // The platform's implicit ack: no code of the Worker's made it.
    ["msg-3#1 Queue:payments ack call", null], ["msg-3#1 Queue:payments ack result", null],
  ]);
  assert.ok(!JSON.stringify(result).includes('"site"'), "the bundle positions stay in the host");
  const threw = result.invocations.find((/** @type {any} */ one) => one.invocation === "msg-1#1");
  assert.deepEqual(threw.error, { name: "Error", message: "planned failure for o-1", at: `worker.ts:${where("throw new Error(`planned failure", "throw").line}` });
});

test("two runs with one seed give byte-identical results, another seed other random values", async () => {
  const plan = paymentsPlan({ globals: SEED, policy: { kind: "seeded", faults: { "2": 1 } } });
  const first = await host.request({ op: "run", plan });
  const second = await host.request({ op: "run", plan });
  const text = (/** @type {any} */ answer) => JSON.stringify(answer.result);
  assert.equal(text(first), text(second));
  const lines = host.rawLines.slice(-2).map((line) => line.replace(/^\{"id":\d+,/, "{"));
  assert.equal(lines[0], lines[1], "the answer lines themselves are identical");
  const other = await host.run(paymentsPlan({ globals: [7, 7, 7, 7], policy: { kind: "seeded", faults: { "2": 1 } } }));
  assert.notDeepEqual(snapshot(other.effects, "audit").map((/** @type {any} */ r) => r.id), snapshot(first.result.effects, "audit").map((/** @type {any} */ r) => r.id));
});

test("crash_after at the insert redelivers the message and the payment is recorded twice", async () => {
  const result = await host.run(paymentsPlan({ policy: { kind: "replay", faults: [{ invocation: "msg-1#1", ordinal: 0, fault: "crash_after" }], turns: [], batches: [] } }));
  assert.deepEqual(result.end, { kind: "completed" });
  assert.deepEqual(brief(result.effects).slice(0, 3), ["msg-1#1/0 D1:DB run call", "msg-1#1/0 D1:DB run result", "msg-1#1/0 D1:DB run fault:crash_after"]);
  // The crashed invocation's continuation never ran: no audit insert, no ack for msg-1#1.
  assert.equal(result.effects.filter((/** @type {any} */ e) => e.invocation === "msg-1#1").length, 3);
  // msg-1 goes behind msg-2 and is delivered again as msg-1#2.
  assert.deepEqual([...new Set(result.effects.map((/** @type {any} */ e) => e.invocation))], ["msg-1#1", "msg-2#1", "msg-1#2", "snapshot"]);
  const payments = snapshot(result.effects, "payments").filter((/** @type {any} */ r) => r.order_id === "o-1");
  assert.equal(payments.length, 2);
  const fault = result.decisions.find((/** @type {any} */ d) => d.chosen > 0);
  assert.deepEqual(fault, { kind: "fault", invocation: "msg-1#1", ordinal: 0, target: "D1:DB", options: ["none", "crash_before", "crash_after", "ambiguous", "error"], chosen: 2 });
});

test("crash_before, error and ambiguous at the insert take their documented outcomes", async () => {
  const one = [{ id: "msg-1", body: { orderId: "o-1", amountCents: 1200 } }];
  const at = (/** @type {string} */ fault) => paymentsPlan({ events: one, policy: { kind: "replay", faults: [{ invocation: "msg-1#1", ordinal: 0, fault }], turns: [], batches: [] } });
  const before = await host.run(at("crash_before"));
  assert.deepEqual(brief(before.effects).slice(0, 2), ["msg-1#1/0 D1:DB run call", "msg-1#1/0 D1:DB run fault:crash_before"]);
  assert.equal(snapshot(before.effects, "payments").length, 1, "nothing committed at the crash; the redelivery paid once");
  const error = await host.run(at("error"));
  assert.equal(snapshot(error.effects, "payments").length, 1, "the error committed nothing; the handler threw and the redelivery paid");
  assert.ok(error.effects.some((/** @type {any} */ e) => e.invocation === "msg-1#2"));
  const ambiguous = await host.run(at("ambiguous"));
  assert.deepEqual(brief(ambiguous.effects).slice(0, 3), ["msg-1#1/0 D1:DB run call", "msg-1#1/0 D1:DB run result", "msg-1#1/0 D1:DB run fault:ambiguous"]);
  assert.equal(snapshot(ambiguous.effects, "payments").length, 2, "it committed, the caller saw an error, the redelivery paid again");
});

/** A one-message plan whose handler makes the explicit decision `decide`. @param {string} decide @param {object} [options] */
function deciding(decide, options = {}) {
  return paymentsPlan({ events: [{ id: "msg-1", body: { orderId: "o-1", amountCents: 7, decide } }], ...options });
}

test("the first decision per message wins; a later one is recorded as not effective", async () => {
  const result = await host.run(deciding("ack-twice"));
  const acks = result.effects.filter((/** @type {any} */ e) => e.op === "ack" && e.kind === "result");
  assert.deepEqual(acks.map((/** @type {any} */ e) => [e.ordinal, e.payload]), [
    [2, { args: { messageId: "msg-1", body: { orderId: "o-1", amountCents: 7, decide: "ack-twice" } }, result: { effective: true } }],
    [3, { args: { messageId: "msg-1", body: { orderId: "o-1", amountCents: 7, decide: "ack-twice" } }, result: { effective: false } }],
  ]);
  // Explicit acks are decision points (crash_before, crash_after); no implicit ack follows.
  assert.deepEqual(result.decisions.slice(2).map((/** @type {any} */ d) => d.options), [["none", "crash_before", "crash_after"], ["none", "crash_before", "crash_after"]]);
  assert.equal(result.effects.filter((/** @type {any} */ e) => e.op === "ack").length, 4);
});

test("ackAll is one decision point per message", async () => {
  const result = await host.run(deciding("ack-all"));
  const acks = result.effects.filter((/** @type {any} */ e) => e.op === "ack" && e.kind === "result");
  assert.deepEqual(acks.map((/** @type {any} */ e) => e.payload.result.effective), [true]);
  assert.equal(acks[0].payload.args.implicit, undefined);
});

test("retry() redelivers even though the handler returned", async () => {
  const result = await host.run(deciding("retry", { bounds: { maxRedeliveries: 1 } }));
  const invocations = [...new Set(result.effects.map((/** @type {any} */ e) => e.invocation))];
  assert.deepEqual(invocations, ["msg-1#1", "msg-1#2", "snapshot"]);
  // max_retries 3 would deliver it again: maxRedeliveries 1 cuts the run there, and the message is not dead-lettered.
  assert.deepEqual(result.effects.filter((/** @type {any} */ e) => e.op === "dead_letter"), []);
  assert.deepEqual(result.cuts, [{ bound: "maxRedeliveries", where: "Queue:payments", invocation: "msg-1#2", left: ["msg-1"], limit: 1, platformLimit: 3 }]);
});

test("crash_after at an explicit ack keeps the ack; crash_before loses it and the message comes back", async () => {
  const fault = (/** @type {string} */ kind) => ({ kind: "replay", faults: [{ invocation: "msg-1#1", ordinal: 2, fault: kind }], turns: [], batches: [] });
  const kept = await host.run(deciding("ack-twice", { policy: fault("crash_after") }));
  assert.deepEqual(brief(kept.effects), [
    "msg-1#1/0 D1:DB run call", "msg-1#1/0 D1:DB run result", "msg-1#1/1 D1:DB run call", "msg-1#1/1 D1:DB run result",
    "msg-1#1/2 Queue:payments ack call", "msg-1#1/2 Queue:payments ack result", "msg-1#1/2 Queue:payments ack fault:crash_after",
  ]);
  const lost = await host.run(deciding("ack-twice", { policy: fault("crash_before") }));
  assert.ok(brief(lost.effects).includes("msg-1#1/2 Queue:payments ack fault:crash_before"));
  assert.ok(lost.effects.some((/** @type {any} */ e) => e.invocation === "msg-1#2"), "the unacknowledged message is redelivered");
});

test("code that catches the crash and carries on gets nowhere", async () => {
  const result = await host.run(deciding("ack-swallow-crash", { policy: { kind: "replay", faults: [{ invocation: "msg-1#1", ordinal: 2, fault: "crash_before" }], turns: [], batches: [] } }));
  assert.equal(result.effects.filter((/** @type {any} */ e) => e.invocation === "msg-1#1").length, 6, "nothing after the crash is recorded");
  assert.equal(snapshot(result.effects, "payments").some((/** @type {any} */ r) => r.order_id === "after-crash"), false, "nor performed");
});

test("a handler that always throws is redelivered up to max_retries, then dead-lettered, and the globals are restored", async () => {
  // No maxRedeliveries: the consumer's max_retries (3) alone decides, as on Cloudflare.
  const result = await host.run(paymentsPlan({ events: [{ id: "msg-1", body: { orderId: "o-9", amountCents: 1, fail: true } }], bounds: { maxRedeliveries: null } }));
  assert.deepEqual(result.end, { kind: "completed" });
  const invocations = [...new Set(result.effects.map((/** @type {any} */ e) => e.invocation))];
  assert.deepEqual(invocations, ["msg-1#1", "msg-1#2", "msg-1#3", "msg-1#4", "snapshot"]);
  const dead = result.effects.filter((/** @type {any} */ e) => e.op === "dead_letter" && e.kind === "result");
  assert.deepEqual(dead.map((/** @type {any} */ e) => [e.invocation, e.payload.args]), [["msg-1#4", { messageId: "msg-1", attempts: 4 }]]);
  assert.equal(result.cuts, undefined, "the platform's own limit is no cut");
  assert.equal(result.effects.some((/** @type {any} */ e) => e.op === "ack"), false);
  const probe = await host.ok({ op: "probe" });
  assert.deepEqual(probe.result.patched, []);
});

test("a virtual timer fires when the invocation waits on it, moving the clock", async () => {
  const result = await host.run(paymentsPlan({ globals: SEED, events: [{ id: "msg-1", body: { orderId: "o-1", amountCents: 5, sleepMs: 60000 } }] }));
  assert.deepEqual(result.end, { kind: "completed" });
  assert.equal(result.effects[0].time, EPOCH + 60000);
  assert.deepEqual(snapshot(result.effects, "audit").map((/** @type {any} */ r) => r.at), [EPOCH + 60001]);
});

test("Web Crypto is waited for, unrecorded, and scheduler.wait is a virtual timer", async () => {
  const result = await host.run(paymentsPlan({ events: [{ id: "msg-1", body: { orderId: "o-1", amountCents: 5, digest: true, waitMs: 250 } }] }));
  assert.deepEqual(result.end, { kind: "completed" });
  assert.equal(result.effects[0].time, EPOCH + 250);
  assert.deepEqual((await host.ok({ op: "probe" })).result.patched, []);
});

for (const [touch, cause, detail] of [
  ["ai", "binding_not_allowed", /AI binding AI was touched/],
  ["fetch", "outbound_request", /outbound fetch POST https:\/\/payments.invalid\/charge/],
  ["weakref", "weakref", /WeakRef/],
  ["caches", "binding_not_allowed", /Cache API/],
]) {
  test(`touching ${touch} makes the run UNSUPPORTED, naming it`, async () => {
    const result = await host.run(paymentsPlan({ events: [{ id: "msg-1", body: { orderId: "o-1", amountCents: 5, touch } }, { id: "msg-2", body: { orderId: "o-2", amountCents: 5 } }] }));
    assert.equal(result.end.kind, "unsupported");
    assert.equal(result.end.cause, cause);
    assert.match(result.end.detail, /** @type {RegExp} */ (detail));
    assert.equal(result.effects.some((/** @type {any} */ e) => e.invocation === "msg-2#1"), false, "the drive stops at the touch");
    assert.deepEqual((await host.ok({ op: "probe" })).result.patched, []);
  });
}

test("concurrent invocations are run with turns, not refused (turns.test.mjs has the rest)", async () => {
  const result = await host.run(paymentsPlan({ bounds: { maxConcurrentInvocations: 2 } }));
  assert.deepEqual(result.end, { kind: "completed" });
  assert.ok(result.decisions.some((/** @type {any} */ d) => d.kind === "turn"));
});

test("a bad request answers an error and the host carries on", async () => {
  const unknown = await host.request({ op: "fly" });
  assert.equal(unknown.ok, false);
  assert.match(unknown.error, /unknown op/);
  const badPlan = await host.request({ op: "run", plan: { protocol: 2 } });
  assert.equal(badPlan.ok, false);
  assert.match(badPlan.error, /protocol version/);
  const result = await host.run(paymentsPlan());
  assert.equal(result.end.kind, "completed");
});

test("a plan without what the engine resolves (effectHangMs, maxRedeliveries), or with a maxRedeliveries that is no count, is Eutaxy's own bug: an internal error, and the next run is unharmed", async () => {
  for (const [field, value] of [["effectHangMs", undefined], ["maxRedeliveries", undefined], ["maxRedeliveries", -1]]) {
    const plan = paymentsPlan();
    /** @type {any} */ (plan.scenario.bounds)[field] = value;
    const answer = await host.request({ op: "run", plan });
    assert.equal(answer.ok, false);
    assert.equal(answer.user, false, "not the user's to fix");
    assert.match(answer.error, new RegExp(`EutaxyInternalError: eutaxy internal error: .*${field}`));
  }
  const result = await host.run(paymentsPlan());
  assert.equal(result.end.kind, "completed");
});

test("a queue drive without its batchSize (define_scenario writes it) is an internal error; one of two takes both messages in one invocation, as null (the consumer's maxBatchSize, 2) does", async () => {
  for (const batchSize of [undefined, 0, 1.5]) {
    const plan = paymentsPlan();
    /** @type {any} */ (plan.scenario.drive).batchSize = batchSize;
    const answer = await host.request({ op: "run", plan });
    assert.equal(answer.ok, false, JSON.stringify(batchSize));
    assert.equal(answer.user, false, "not the user's to fix");
    assert.match(answer.error, /EutaxyInternalError: eutaxy internal error: .*batchSize/);
  }
  const one = await host.run(paymentsPlan());
  const pair = paymentsPlan();
  /** @type {any} */ (pair.scenario.drive).batchSize = 2;
  const two = await host.run(pair);
  const invocations = (/** @type {any} */ result) => [...new Set(result.effects.map((/** @type {any} */ e) => e.invocation).filter((/** @type {string} */ id) => id !== "snapshot"))];
  assert.deepEqual(invocations(one), ["msg-1#1", "msg-2#1"]);
  assert.deepEqual(invocations(two), ["msg-1#1"]);
  // A batch of several names its messages; one of one names none.
  assert.deepEqual(two.invocations.map((/** @type {any} */ one) => one.messages), [["msg-1", "msg-2"]]);
  assert.deepEqual(one.invocations.map((/** @type {any} */ one) => one.messages), [undefined, undefined]);
  const consumers = paymentsPlan();
  /** @type {any} */ (consumers.scenario.drive).batchSize = null;
  assert.deepEqual(invocations(await host.run(consumers)), ["msg-1#1"]);
});

test("a delivery of two messages makes a batch decision within maxShortBatches: option 1 takes the first alone, replay names it by invocation", async () => {
  const invocations = (/** @type {any} */ result) => [...new Set(result.effects.map((/** @type {any} */ e) => e.invocation).filter((/** @type {string} */ id) => id !== "snapshot"))];
  const batchDecisions = (/** @type {any} */ result) => result.decisions.filter((/** @type {any} */ d) => d.kind === "batch");
  /** @param {object} fields */
  const pair = (fields) => {
    const plan = { ...paymentsPlan({ maxFaults: 0 }), ...fields };
    /** @type {any} */ (plan.scenario.drive).batchSize = 2;
    return plan;
  };
  // maxShortBatches 0: no decision, both messages in one batch (the platform's).
  const none = await host.run(pair({}));
  assert.deepEqual(invocations(none), ["msg-1#1"]);
  assert.deepEqual(batchDecisions(none), []);
  // Offered at 1: option 0 is the platform's batch; a forced 1 takes msg-1 alone, then msg-2 (one left: no decision).
  const whole = await host.run(pair({ maxShortBatches: 1 }));
  assert.deepEqual(batchDecisions(whole), [{ kind: "batch", invocation: "msg-1#1", target: "Queue:payments", options: [2, 1], chosen: 0 }]);
  assert.deepEqual(invocations(whole), ["msg-1#1"]);
  const short = await host.run(pair({ maxShortBatches: 1, prefix: [1] }));
  assert.deepEqual(invocations(short), ["msg-1#1", "msg-2#1"]);
  assert.deepEqual(batchDecisions(short).map((/** @type {any} */ d) => d.chosen), [1]);
  const replayed = await host.run(pair({ maxShortBatches: 1, policy: { kind: "replay", faults: [], turns: [], batches: [{ invocation: "msg-1#1", size: 1 }] } }));
  assert.equal(JSON.stringify(replayed.effects), JSON.stringify(short.effects));
});
