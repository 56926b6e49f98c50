// @ts-check
/**
 * The http drive, outbound fetch to declared externals and ctx.waitUntil's background point,
 * on a real Miniflare through the host, with plans as Python sends them.
 */

import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";

import { FIXTURES, HostProcess, drivePlan, fixtureLoad, useHost } from "./helpers.mjs";

const FIXTURE = path.join(FIXTURES, "http");
const EPOCH = 1767225600000;
const PAY = { name: "payments-api", host: "*.pay.example", responses: [{ method: "POST", path: "/charges", status: 200, headers: {}, body: { id: "ch-1" } }], dedupeBy: "Idempotency-Key" };

const host = useHost(fixtureLoad(FIXTURE, { compatibilityFlags: ["nodejs_compat"], d1Databases: { DB: "http-db" }, queueConsumers: { orders: { maxRetries: 3, retryDelaySeconds: 0, maxBatchSize: 1 } } }));

/**
 * @param {{events: any[], caller?: object, externals?: object[], drive?: object, policy?: object, prefix?: number[], bounds?: object, maxFaults?: number}} options
 */
function plan(options) {
  return drivePlan({
    seed: "test",
    name: "http",
    drive: options.drive ?? { kind: "http", name: "http", events: options.events, caller: options.caller ?? { retries: 0, retryOn: "non-2xx", delaysMs: [], deadlineMs: null } },
    externals: options.externals ?? [PAY],
    bounds: { maxFaultsPerRun: 1, maxRedeliveries: 10, maxConcurrentInvocations: 1, budgetMs: 5000, effectHangMs: 5000, ...(options.bounds ?? {}) },
    prefix: options.prefix,
    policy: options.policy,
    maxFaults: options.maxFaults ?? 1,
  });
}

/** @param {string} id @param {string} p @param {unknown} [body] @param {string} [method] */
function req(id, p, body = undefined, method = "POST") {
  return { id, method, path: p, headers: {}, body: body ?? null };
}

/** @param {any[]} effects */
function brief(effects) {
  return effects.filter((e) => e.kind !== "snapshot").map((e) => `${e.invocation}/${e.ordinal} ${e.target} ${e.op} ${e.kind}${e.kind === "fault" ? ":" + e.payload.fault : ""}`);
}

/** @param {any[]} effects @param {string} op */
function results(effects, op) {
  return effects.filter((e) => e.op === op && e.kind === "result");
}

/** @param {any[]} effects */
function orders(effects) {
  return effects.find((e) => e.kind === "snapshot" && e.op === "orders").payload.rows;
}

test("each request is one invocation calling fetch(); the response is an effect", async () => {
  const result = await host.runCompleted(plan({ events: [req("req-1", "/orders", { orderId: "o-1", amountCents: 5 }), req("req-2", "/status?code=204", null, "GET")] }));
  assert.deepEqual(brief(result.effects), [
    "req-1#1/0 D1:DB run call",
    "req-1#1/0 D1:DB run result",
    "req-1#1/1 Http:/orders response call",
    "req-1#1/1 Http:/orders response result",
    "req-2#1/0 Http:/status response call",
    "req-2#1/0 Http:/status response result",
  ]);
  const [created, status] = results(result.effects, "response");
  assert.deepEqual(created.payload, { args: { requestId: "req-1", method: "POST", path: "/orders" }, result: { status: 201, ok: true, body: "created" } });
  assert.equal(created.time, EPOCH + 1);
  assert.deepEqual(status.payload.result, { status: 204, ok: true, body: "" });
  assert.deepEqual(result.decisions.map((/** @type {any} */ d) => d.options), [
    ["none", "crash_before", "crash_after", "ambiguous", "error"],
    ["none", "crash_before"],
    ["none", "crash_before"],
  ]);
});

test("a JSON body arrives as JSON, a text body as text", async () => {
  const result = await host.run(plan({ events: [req("req-1", "/echo", { a: 1 }), req("req-2", "/echo", "plain words")] }));
  const [json, text] = results(result.effects, "response").map((e) => e.payload.result.body);
  assert.deepEqual(json, { method: "POST", type: "application/json", text: '{"a":1}' });
  assert.deepEqual(text, { method: "POST", type: "text/plain;charset=UTF-8", text: "plain words" });
});

test("an uncaught exception and a result that is not a Response are 500s", async () => {
  const result = await host.run(plan({ events: [req("req-1", "/throw", null, "GET"), req("req-2", "/not-a-response", null, "GET")] }));
  assert.deepEqual(results(result.effects, "response").map((e) => e.payload.result), [{ status: 500, ok: false, body: "" }, { status: 500, ok: false, body: "" }]);
  // retries 0: the caller gives up at once on each.
  assert.deepEqual(results(result.effects, "gave_up").map((e) => e.payload.args), [{ requestId: "req-1", attempts: 1 }, { requestId: "req-2", attempts: 1 }]);
});

test("crash_before at the response: the caller never received it and resends; retries spent, it gives up", async () => {
  const caller = { retries: 1, retryOn: "non-2xx", delaysMs: [1000], deadlineMs: null };
  const crash = { kind: "replay", faults: [{ invocation: "req-1#1", ordinal: 1, fault: "crash_before" }], turns: [], batches: [] };
  const result = await host.run(plan({ events: [req("req-1", "/orders", { orderId: "o-1", amountCents: 5 })], caller, policy: crash }));
  assert.deepEqual(brief(result.effects), [
    "req-1#1/0 D1:DB run call",
    "req-1#1/0 D1:DB run result",
    "req-1#1/1 Http:/orders response call",
    "req-1#1/1 Http:/orders response fault:crash_before",
    "req-1#2/0 D1:DB run call",
    "req-1#2/0 D1:DB run result",
    "req-1#2/1 Http:/orders response call",
    "req-1#2/1 Http:/orders response result",
  ]);
  // The resend waited its delay in virtual time.
  assert.equal(result.effects.find((/** @type {any} */ e) => e.invocation === "req-1#2").time, EPOCH + 2 + 1000);
  assert.equal(orders(result.effects).length, 2, "the order was written twice");

  const failing = await host.run(plan({ events: [req("req-1", "/status?code=503", null, "GET")], caller }));
  assert.deepEqual(brief(failing.effects).filter((line) => !line.endsWith("call")), [
    "req-1#1/0 Http:/status response result",
    "req-1#2/0 Http:/status response result",
    "req-1#2/1 Http:/status gave_up result",
  ]);
});

test("retryOn 5xx resends a 503 but not a 404; maxRedeliveries bounds the caller's retries", async () => {
  const caller = { retries: 5, retryOn: "5xx", delaysMs: [], deadlineMs: null };
  const result = await host.run(plan({ events: [req("req-1", "/status?code=503", null, "GET"), req("req-2", "/status?code=404", null, "GET")], caller, bounds: { maxRedeliveries: 2 } }));
  const invocations = results(result.effects, "response").map((e) => e.invocation);
  // A resend goes behind requests already waiting.
  assert.deepEqual(invocations, ["req-1#1", "req-2#1", "req-1#2", "req-1#3"]);
  // The caller would resend it twice more: the bound cut the run there, and the caller never gave up.
  assert.deepEqual(results(result.effects, "gave_up"), []);
  assert.deepEqual(result.cuts, [{ bound: "maxRedeliveries", where: "Http:/status", invocation: "req-1#3", left: ["req-1"], limit: 2, platformLimit: 5 }]);
  const unbounded = await host.run(plan({ events: [req("req-1", "/status?code=503", null, "GET")], caller, bounds: { maxRedeliveries: null } }));
  assert.deepEqual(results(unbounded.effects, "gave_up").map((e) => e.payload.args), [{ requestId: "req-1", attempts: 6 }]);
  assert.equal(unbounded.cuts, undefined);
});

test("ambiguous is offered only with a deadline: sent, counted failed, and the handler carries on", async () => {
  const caller = { retries: 1, retryOn: "non-2xx", delaysMs: [], deadlineMs: 30000 };
  const ambiguous = { kind: "replay", faults: [{ invocation: "req-1#1", ordinal: 1, fault: "ambiguous" }], turns: [], batches: [] };
  const result = await host.run(plan({ events: [req("req-1", "/later", { orderId: "o-1", amountCents: 5 })], caller, policy: ambiguous }));
  assert.deepEqual(result.decisions.find((/** @type {any} */ d) => d.target === "Http:/later").options, ["none", "crash_before", "ambiguous"]);
  // The background read started in the handler (ordinal 0) and was in flight when it returned.
  assert.deepEqual(brief(result.effects).filter((line) => line.startsWith("req-1#1")), [
    "req-1#1/0 D1:DB first call",
    "req-1#1/1 Http:/later response call",
    "req-1#1/1 Http:/later response result",
    "req-1#1/1 Http:/later response fault:ambiguous",
    "req-1#1/2 Http:/later background call",
    "req-1#1/2 Http:/later background result",
    "req-1#1/0 D1:DB first result",
    "req-1#1/3 D1:DB run call",
    "req-1#1/3 D1:DB run result",
  ]);
  assert.ok(result.effects.some((/** @type {any} */ e) => e.invocation === "req-1#2"), "the caller resent");
  assert.equal(orders(result.effects).length, 1, "the resend found the order the first attempt's background work wrote");
});

test("an answer later than the deadline counts as failed", async () => {
  const caller = { retries: 1, retryOn: "non-2xx", delaysMs: [], deadlineMs: 1000 };
  const result = await host.run(plan({ events: [req("req-1", "/slow", null, "GET")], caller, maxFaults: 0 }));
  assert.deepEqual(results(result.effects, "response").map((e) => [e.invocation, e.payload.result.status]), [["req-1#1", 200], ["req-1#2", 200]]);
  assert.equal(results(result.effects, "gave_up").length, 1);
});

test("background work: the read in flight when the handler returned; cut_off commits it and loses the write", async () => {
  const events = [req("req-1", "/later", { orderId: "o-1", amountCents: 5 })];
  const clean = await host.run(plan({ events, maxFaults: 0 }));
  assert.equal(orders(clean.effects).length, 1);
  const background = clean.effects.find((/** @type {any} */ e) => e.op === "background" && e.kind === "result");
  assert.deepEqual(background.payload, { args: { pending: 1 }, result: { cutOff: false } });

  const cut = await host.run(plan({ events, policy: { kind: "replay", faults: [{ invocation: "req-1#1", ordinal: 2, fault: "cut_off" }], turns: [], batches: [] } }));
  assert.deepEqual(brief(cut.effects), [
    "req-1#1/0 D1:DB first call",
    "req-1#1/1 Http:/later response call",
    "req-1#1/1 Http:/later response result",
    "req-1#1/2 Http:/later background call",
    "req-1#1/2 Http:/later background fault:cut_off",
    "req-1#1/0 D1:DB first result",
  ]);
  // The response was 202 either way: background work never changes it, and the caller did not resend.
  assert.equal(results(cut.effects, "response")[0].payload.result.status, 202);
  assert.deepEqual(orders(cut.effects), []);
  assert.deepEqual(cut.decisions.map((/** @type {any} */ d) => d.options.join(" ")), ["none crash_before crash_after error", "none crash_before", "none cut_off"]);
});

test("a body written by background work is read to its end; cut off, it never ends and the run is UNSUPPORTED", async () => {
  const events = [req("req-1", "/stream", null, "GET")];
  const clean = await host.runCompleted(plan({ events, maxFaults: 0 }));
  assert.deepEqual(results(clean.effects, "response")[0].payload.result, { status: 200, ok: true, body: "none" });
  const cut = await host.run(plan({ events, bounds: { budgetMs: 300, effectHangMs: 300 }, policy: { kind: "replay", faults: [{ invocation: "req-1#1", ordinal: 2, fault: "cut_off" }], turns: [], batches: [] } }));
  assert.equal(cut.end.cause, "unseen_wait");
  assert.match(cut.end.detail, /response body of req-1#1/);
});

test("the queue drive's waitUntil work meets the same background point, after the implicit ack", async () => {
  const drive = { kind: "queue", name: "orders", events: [{ id: "msg-1", body: { orderId: "o-1", amountCents: 5 } }], batchSize: 1 };
  const cut = await host.run(plan({ events: [], drive, policy: { kind: "replay", faults: [{ invocation: "msg-1#1", ordinal: 2, fault: "cut_off" }], turns: [], batches: [] } }));
  assert.deepEqual(brief(cut.effects), [
    "msg-1#1/0 D1:DB first call",
    "msg-1#1/1 Queue:orders ack call",
    "msg-1#1/1 Queue:orders ack result",
    "msg-1#1/2 Queue:orders background call",
    "msg-1#1/2 Queue:orders background fault:cut_off",
    "msg-1#1/0 D1:DB first result",
  ]);
  assert.deepEqual(orders(cut.effects), []);
  const clean = await host.run(plan({ events: [], drive, maxFaults: 0 }));
  assert.equal(orders(clean.effects).length, 1);
  assert.equal(clean.effects.filter((/** @type {any} */ e) => e.invocation === "msg-1#2").length, 0, "the message stays acked");
});

test("an outbound fetch to a declared external is one effect answered from its script", async () => {
  const result = await host.runCompleted(plan({ events: [req("req-1", "/charge", { orderId: "o-1", amountCents: 5 })], maxFaults: 0 }));
  const call = results(result.effects, "POST")[0];
  assert.equal(call.target, "Fetch:payments-api");
  assert.deepEqual(call.payload, {
    args: { url: "https://api.pay.example/charges", method: "POST", headers: { "content-type": "application/json" }, body: { orderId: "o-1", amountCents: 5 }, dedupeKey: null },
    result: { status: 200, effective: true, dedupeKey: null },
  });
  assert.deepEqual(results(result.effects, "response")[0].payload.result, { status: 200, ok: true, body: { charged: "ch-1" } });
  const noScript = await host.run(plan({ events: [req("req-1", "/charge", { orderId: "o-1", amountCents: 5 })], externals: [{ name: "pay", host: "api.pay.example", responses: [], dedupeBy: null }], maxFaults: 0 }));
  // An empty reply body: the Worker's reply.json() throws, so the handler answers a 500.
  assert.deepEqual(results(noScript.effects, "POST")[0].payload.result, { status: 200, effective: true, dedupeKey: null });
  assert.equal(results(noScript.effects, "response")[0].payload.result.status, 500);
});

test("a repeated dedupe key gets the earlier reply, recorded not effective", async () => {
  const events = [req("req-1", "/charge", { orderId: "o-1", amountCents: 5, key: "k-1" }), req("req-2", "/charge", { orderId: "o-1", amountCents: 5, key: "k-1" }), req("req-3", "/charge", { orderId: "o-2", amountCents: 5, key: "k-2" })];
  const result = await host.run(plan({ events, maxFaults: 0 }));
  assert.deepEqual(results(result.effects, "POST").map((e) => [e.payload.args.dedupeKey, e.payload.result.effective]), [["k-1", true], ["k-1", false], ["k-2", true]]);
  assert.deepEqual(results(result.effects, "response").map((e) => e.payload.result.body), [{ charged: "ch-1" }, { charged: "ch-1" }, { charged: "ch-1" }]);
});

test("an ambiguous outbound request committed: the resend with its key is not effective", async () => {
  const events = [req("req-1", "/charge", { orderId: "o-1", amountCents: 5, key: "k-1" })];
  const caller = { retries: 2, retryOn: "non-2xx", delaysMs: [], deadlineMs: null };
  const result = await host.run(plan({ events, caller, policy: { kind: "replay", faults: [{ invocation: "req-1#1", ordinal: 0, fault: "ambiguous" }], turns: [], batches: [] } }));
  assert.deepEqual(brief(result.effects).slice(0, 3), ["req-1#1/0 Fetch:payments-api POST call", "req-1#1/0 Fetch:payments-api POST result", "req-1#1/0 Fetch:payments-api POST fault:ambiguous"]);
  assert.deepEqual(results(result.effects, "POST").map((e) => [e.invocation, e.payload.result.effective]), [["req-1#1", true], ["req-1#2", false]]);
  assert.deepEqual(results(result.effects, "response").map((e) => [e.invocation, e.payload.result.status]), [["req-1#1", 500], ["req-1#2", 200]]);
});

for (const [route, detail] of [
  ["/elsewhere", /outbound fetch GET https:\/\/elsewhere.example\/x: no external declares host elsewhere.example/],
  ["/refund", /outbound fetch POST https:\/\/api.pay.example\/refunds: external payments-api scripts no response/],
]) {
  test(`an unanswerable outbound fetch (${route}) is UNSUPPORTED, naming it`, async () => {
    const result = await host.run(plan({ events: [req("req-1", /** @type {string} */ (route), null, "GET"), req("req-2", "/status", null, "GET")] }));
    assert.equal(result.end.cause, "outbound_request");
    assert.match(result.end.detail, /** @type {RegExp} */ (detail));
    assert.equal(result.effects.some((/** @type {any} */ e) => e.invocation === "req-2#1"), false);
    assert.deepEqual((await host.ok({ op: "probe" })).result.patched, []);
  });
}

test("a Worker without fetch() is a user error for the http drive", async () => {
  const other = new HostProcess();
  try {
    await other.ok(fixtureLoad(FIXTURE, { entry: path.join(FIXTURE, "no-fetch.ts") }));
    const answer = await other.request({ op: "run", plan: plan({ events: [req("req-1", "/", null, "GET")] }) });
    assert.equal(answer.ok, false);
    assert.equal(answer.user, true);
    assert.match(answer.error, /no fetch\(\) handler/);
  } finally {
    await other.close();
  }
});

/** Turn decisions as `start <event>` / `effect <invocation>` lines. @param {any} result */
function picks(result) {
  return result.decisions.filter((/** @type {any} */ d) => d.kind === "turn").map((/** @type {any} */ d) => {
    const option = d.options[d.chosen];
    return option.kind === "start" ? `start ${option.event}` : `${option.kind} ${option.invocation ?? ""}`.trim();
  });
}

/** Effects that are not calls, with their virtual time since the epoch. @param {any[]} effects */
function timed(effects) {
  return effects.filter((e) => e.kind !== "snapshot" && e.kind !== "call").map((e) => `${e.invocation}/${e.ordinal} ${e.target} ${e.op} ${e.kind}${e.kind === "fault" ? ":" + e.payload.fault : ""} +${e.time - EPOCH}`);
}

const CONCURRENT = { maxConcurrentInvocations: 2 };

test("concurrent: the deadline is a virtual timer; the resend starts while the first attempt runs, whose late answer decides nothing", async () => {
  const caller = { retries: 1, retryOn: "non-2xx", delaysMs: [250], deadlineMs: 1000 };
  const result = await host.runCompleted(plan({ events: [req("req-1", "/slow", null, "GET")], caller, bounds: CONCURRENT, maxFaults: 0 }));
  // /slow answers after a 5000 ms timer. req-1#1's deadline passes at +1000; its resend is due
  // 250 ms later and starts then, while req-1#1 still sleeps; req-1#2's deadline passes at
  // +2250 with the retries spent. Both answers come late and are recorded, deciding nothing.
  assert.deepEqual(timed(result.effects), [
    "req-1#2/0 Http:/slow gave_up result +2250",
    "req-1#1/0 Http:/slow response result +5000",
    "req-1#2/1 Http:/slow response result +6250",
  ]);
  assert.deepEqual(picks(result), ["start req-1", "start req-1"]);
  assert.equal(results(result.effects, "gave_up").length, 1);
});

test("concurrent: an answer at the deadline's instant is in time (timers due then fire first)", async () => {
  const caller = { retries: 1, retryOn: "non-2xx", delaysMs: [], deadlineMs: 5000 };
  const result = await host.run(plan({ events: [req("req-1", "/slow", null, "GET")], caller, bounds: CONCURRENT, maxFaults: 0 }));
  assert.deepEqual(timed(result.effects), ["req-1#1/0 Http:/slow response result +5000"]);
  const sequential = await host.run(plan({ events: [req("req-1", "/slow", null, "GET")], caller, maxFaults: 0 }));
  assert.deepEqual(timed(sequential.effects), timed(result.effects));
});

test("concurrent: a resend waits its delay, behind requests already waiting; time passes to it", async () => {
  const caller = { retries: 2, retryOn: "non-2xx", delaysMs: [1000, 3000], deadlineMs: null };
  const events = [req("req-1", "/status?code=503", null, "GET"), req("req-2", "/status", null, "GET")];
  const result = await host.runCompleted(plan({ events, caller, bounds: CONCURRENT, maxFaults: 0 }));
  assert.deepEqual(timed(result.effects), [
    "req-1#1/0 Http:/status response result +0",
    "req-2#1/0 Http:/status response result +1",
    "req-1#2/0 Http:/status response result +1001",
    "req-1#3/0 Http:/status response result +4002",
    "req-1#3/1 Http:/status gave_up result +4003",
  ]);
  // The resend is not on offer before it is due: each start is the only option.
  assert.ok(result.decisions.every((/** @type {any} */ d) => d.options.length === 1));
  assert.deepEqual(picks(result), ["start req-1", "start req-2", "start req-1", "start req-1"]);
});

test("concurrent: an answer past the deadline, reached before the alarm, is the caller's one decision", async () => {
  // deadlineMs 0: the write at +0 is in time, the answer at +1 is late; the resend is due at
  // the deadline (+0), so it starts at once.
  const caller = { retries: 1, retryOn: "non-2xx", delaysMs: [], deadlineMs: 0 };
  const result = await host.run(plan({ events: [req("req-1", "/orders", { orderId: "o-1", amountCents: 5 })], caller, bounds: CONCURRENT, maxFaults: 0 }));
  assert.deepEqual(timed(result.effects), [
    "req-1#1/0 D1:DB run result +0",
    "req-1#1/1 Http:/orders response result +1",
    "req-1#2/0 D1:DB run result +2",
    "req-1#2/1 Http:/orders response result +3",
    "req-1#2/2 Http:/orders gave_up result +4",
  ]);
  assert.equal(orders(result.effects).length, 2);
});

test("concurrent: ambiguous at the response is offered with a deadline; the resend overlaps the background work", async () => {
  const caller = { retries: 1, retryOn: "non-2xx", delaysMs: [], deadlineMs: 30000 };
  // The background read parks before it takes an ordinal, so the response is ordinal 0 here.
  const ambiguous = { kind: "replay", faults: [{ invocation: "req-1#1", ordinal: 0, fault: "ambiguous" }], turns: [], batches: [] };
  const result = await host.runCompleted(plan({ events: [req("req-1", "/later", { orderId: "o-1", amountCents: 5 })], caller, policy: ambiguous, bounds: CONCURRENT }));
  assert.deepEqual(result.decisions.find((/** @type {any} */ d) => d.kind === "fault" && d.target === "Http:/later").options, ["none", "crash_before", "ambiguous"]);
  // The caller decided at the response; the resend is on offer beside req-1#1's background read.
  const offered = result.decisions.filter((/** @type {any} */ d) => d.kind === "turn").map((/** @type {any} */ d) => d.options);
  assert.ok(offered.some((options) => options.some((/** @type {any} */ o) => o.kind === "start" && o.event === "req-1") && options.some((/** @type {any} */ o) => o.kind === "effect" && o.invocation === "req-1#1")), JSON.stringify(offered));
  assert.ok(result.effects.some((/** @type {any} */ e) => e.invocation === "req-1#2" && e.op === "response" && e.kind === "result"));
});

test("concurrent: a seeded run with a deadline and delays is the same run twice", async () => {
  const caller = { retries: 2, retryOn: "non-2xx", delaysMs: [100, 700], deadlineMs: 1500 };
  const events = [req("req-1", "/slow", null, "GET"), req("req-2", "/orders", { orderId: "o-2", amountCents: 5 }), req("req-3", "/status?code=503", null, "GET")];
  const seeded = plan({ events, caller, bounds: { maxConcurrentInvocations: 3 }, policy: { kind: "seeded", faults: { 0: 7, 2: 1 } } });
  seeded.streams.turns = [0x9e3779b9, 0x85ebca6b, 0xc2b2ae35, 0x27d4eb2f];
  const first = await host.run(seeded);
  const second = await host.run(seeded);
  assert.deepEqual(first.end, { kind: "completed" });
  assert.equal(JSON.stringify(first), JSON.stringify(second));
  const replayed = await host.run({ ...seeded, policy: { kind: "replay", faults: first.effects.filter((/** @type {any} */ e) => e.kind === "fault").map((/** @type {any} */ e) => ({ invocation: e.invocation, ordinal: e.ordinal, fault: e.payload.fault })), turns: picksIndexes(first), batches: [] } });
  assert.equal(JSON.stringify(replayed.effects), JSON.stringify(first.effects));
});

/** @param {any} result */
function picksIndexes(result) {
  return result.decisions.filter((/** @type {any} */ d) => d.kind === "turn").map((/** @type {any} */ d) => d.chosen);
}
