// @ts-check
/**
 * The scripted service binding (bindings/service.mjs): each RPC call and fetch() through the
 * binding one effect at `Service:<binding>` answered from the `service` step, with a Durable
 * Object stub call's faults; a scripted error as RPC carries it; fetch() routes as an
 * external's; and each use outside the script UNSUPPORTED with its cause. On a real Miniflare
 * through the host, the Worker driven by the rpc drive, with load messages and plans as
 * Python sends them.
 */

import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";

import { FIXTURES, fixtureLoad, kinds, useHost } from "./helpers.mjs";
import { thrownAcross } from "../bindings/service.mjs";

const FIXTURE = path.join(FIXTURES, "service");

/** The `service` step for ORDERS, as Python's record checks it (eutaxy.cloudflare.service). */
const ORDERS = {
  kind: "service",
  binding: "ORDERS",
  methods: {
    reserve: { value: { held: true } },
    charge: { error: { name: "InsufficientFunds", message: "card declined" } },
    store: { value: { name: "s-1" } },
    version: { value: "v2" },
    hold: { replies: [{ value: "held 1" }, { error: { name: "RangeError", message: "sold out" } }, { value: "held 3" }] },
  },
  fetch: [
    { method: "GET", path: "/pages", replies: [{ status: 200, headers: {}, body: "first" }, { status: 200, headers: {}, body: "second" }] },
    { method: "GET", path: "/old", status: 301, headers: { Location: "https://orders.internal/new" }, body: null },
  ],
};

const host = useHost(fixtureLoad(FIXTURE, {
  kinds: kinds({ service: { ORDERS: ["orders", ORDERS, { service: "orders", entrypoint: null }], PLAIN: ["plain", null, { service: "plain", entrypoint: null }] } }),
}));

/**
 * One rpc call of the fixture's entrypoint.
 * @param {string} method @param {unknown[]} [args] @param {{faults?: object[]}} [options]
 */
function plan(method, args = [], options = {}) {
  return {
    protocol: 1,
    seed: "test",
    scenario: {
      name: "service",
      platform: "cloudflare",
      drive: { kind: "rpc", name: "rpc", entrypoint: null, events: [{ id: "call-1", method, args }], caller: { retries: 0, delaysMs: [], deadlineMs: null } },
      externals: [],
      bounds: { maxFaultsPerRun: 1, maxRedeliveries: 0, maxConcurrentInvocations: 1, budgetMs: 5000, effectHangMs: 5000 },
    },
    streams: { globals: [1, 2, 3, 4], turns: [5, 6, 7, 8] },
    prefix: [],
    policy: options.faults ? { kind: "replay", faults: options.faults, turns: [], batches: [] } : { kind: "first" },
    maxFaults: 1,
    maxShortBatches: 0,
  };
}

/** The Service:ORDERS records, `<ordinal> <op> <kind>[:<fault>]`. @param {any[]} effects */
function calls(effects) {
  return effects.filter((e) => e.target === "Service:ORDERS").map((e) => `${e.ordinal} ${e.op} ${e.kind}${e.kind === "fault" ? ":" + e.payload.fault : ""}`);
}

/** The Service:ORDERS records' payloads of `kind` (a result's without the args its call recorded). @param {any[]} effects @param {string} kind */
function payloads(effects, kind) {
  return effects.filter((e) => e.target === "Service:ORDERS" && e.kind === kind).map((e) => (kind === "result" ? e.payload.result : e.payload));
}

/** What the entrypoint answered. @param {any} result */
function answer(result) {
  return result.effects.find((/** @type {any} */ e) => e.op === "response" && e.kind === "result").payload.result;
}

test("each RPC call is one effect answered from the script, a fresh copy each time, with a stub call's ladder", async () => {
  const result = await host.runCompleted(plan("reserve", ["sku-1"]));
  assert.deepEqual(calls(result.effects), ["0 reserve call", "0 reserve result", "1 reserve call", "1 reserve result"]);
  assert.deepEqual(payloads(result.effects, "call")[0], { args: { args: ["sku-1", 1] } });
  assert.deepEqual(payloads(result.effects, "result")[0], { ok: true, value: { held: true } });
  assert.deepEqual(answer(result), { ok: true, value: { first: { held: false }, second: { held: true } } });
  const decision = result.decisions.find((/** @type {any} */ d) => d.kind === "fault" && d.target === "Service:ORDERS");
  assert.deepEqual(decision.options, ["none", "crash_before", "crash_after", "ambiguous", "error"]);
});

test("a scripted error reaches the caller as RPC carries it: a class of the callee's own as an Error named in its message", async () => {
  const result = await host.runCompleted(plan("failing"));
  assert.deepEqual(payloads(result.effects, "result"), [{ ok: false, error: { name: "InsufficientFunds", message: "card declined" } }]);
  assert.deepEqual(answer(result).value, { name: "Error", message: "InsufficientFunds: card declined", builtIn: "Error", remote: true });
  const range = thrownAcross(new RangeError("out of stock"));
  assert.deepEqual([range instanceof RangeError, range.message], [true, "out of stock"]);
});

test("an awaited property is a call of its own, answered from the script", async () => {
  const result = await host.runCompleted(plan("version"));
  assert.deepEqual(payloads(result.effects, "call"), [{ args: { property: true } }]);
  assert.deepEqual(answer(result), { ok: true, value: "v2" });
});

const SOLD_OUT = { name: "RangeError", message: "sold out", builtIn: "RangeError", remote: true };

test("a method's replies in turn: the n-th call that reaches the callee gets the n-th, the last repeating", async () => {
  const result = await host.runCompleted(plan("holds"));
  assert.deepEqual(payloads(result.effects, "result"), [
    { ok: true, value: "held 1" }, { ok: false, error: { name: "RangeError", message: "sold out" } }, { ok: true, value: "held 3" }, { ok: true, value: "held 3" },
  ]);
  assert.deepEqual(answer(result).value, ["held 1", SOLD_OUT, "held 3", "held 3"]);
});

// The first hold() faulted, its error caught: the reply the second gets says whether the first
// reached the callee and took its reply (counted as a fetch() route's requests are).
for (const [fault, second] of /** @type {[string, unknown][]} */ ([["error", "held 1"], ["ambiguous", SOLD_OUT]])) {
  test(`a method's replies in turn, a first call's ${fault} fault: ${fault === "error" ? "it took no reply" : "it took its reply"}`, async () => {
    const result = await host.runCompleted(plan("holds", [], { faults: [{ invocation: "call-1#1", ordinal: 0, fault }] }));
    const [lost, next, ...rest] = answer(result).value;
    assert.match(lost.message, /Network connection lost/);
    assert.deepEqual([next, ...rest], fault === "error" ? ["held 1", SOLD_OUT, "held 3"] : [SOLD_OUT, "held 3", "held 3"]);
  });
}

test("fetch() is matched by method and path as an external's, each reply in turn, and recorded as the request", async () => {
  const result = await host.runCompleted(plan("pages"));
  assert.deepEqual(calls(result.effects), ["0 fetch call", "0 fetch result", "1 fetch call", "1 fetch result"]);
  const [request] = payloads(result.effects, "call");
  assert.deepEqual(request.args, { url: "https://orders.internal/pages?n=0", method: "GET", headers: {}, body: null });
  assert.deepEqual(payloads(result.effects, "result")[1], { status: 200, ok: true, body: "second" });
  assert.deepEqual(answer(result).value, [{ status: 200, body: "first" }, { status: 200, body: "second" }]);
});

// The first fetch faulted, its error caught: whether the second gets the route's second reply
// says whether the first reached the callee (the stub call's meanings).
for (const [fault, second, first] of /** @type {[string, string, string][]} */ ([
  ["error", "first", "Network connection lost. (eutaxy: error injected; the call never reached the callee)"],
  ["ambiguous", "second", "Network connection lost. (eutaxy: ambiguous outcome injected; the callee ran the call)"],
])) {
  test(`a fetch()'s ${fault} fault: ${second === "first" ? "it never reached the callee" : "the callee acted, the answer was lost"}`, async () => {
    const result = await host.runCompleted(plan("pages", [], { faults: [{ invocation: "call-1#1", ordinal: 0, fault }] }));
    assert.deepEqual(calls(result.effects).filter((line) => line.startsWith("0 ")), fault === "error" ? ["0 fetch call", "0 fetch fault:error"] : ["0 fetch call", "0 fetch result", "0 fetch fault:ambiguous"]);
    const [lost, next] = answer(result).value;
    assert.deepEqual([lost.message, next.body], [first, second]);
  });
}

for (const fault of ["crash_before", "crash_after"]) {
  test(`a call's ${fault} fault ends the caller ${fault === "crash_before" ? "before" : "after"} the call`, async () => {
    const result = await host.runCompleted(plan("reserve", ["sku-1"], { faults: [{ invocation: "call-1#1", ordinal: 0, fault }] }));
    assert.deepEqual(calls(result.effects), fault === "crash_before" ? ["0 reserve call", "0 reserve fault:crash_before"] : ["0 reserve call", "0 reserve result", "0 reserve fault:crash_after"]);
    assert.equal(result.invocations[0].outcome, "crashed");
  });
}

test("a redirect reply is answered as it is to redirect: manual, and is UNSUPPORTED where the runtime would follow it", async () => {
  const manual = await host.runCompleted(plan("moved", [true]));
  assert.deepEqual(answer(manual).value, { status: 301, location: "https://orders.internal/new" });
  const followed = await host.run(plan("moved", [false]));
  assert.equal(followed.end.kind, "unsupported");
  assert.equal(followed.end.cause, "service_redirect");
  assert.match(followed.end.detail, /service binding ORDERS: fetch GET \/old is answered 301 with a Location, which the runtime would follow/);
});

for (const [method, cause, detail] of /** @type {[string, string, RegExp][]} */ ([
  ["unscripted", "service_method_unscripted", /service binding ORDERS: missing\(\) was called, but its service step scripts no reply for it \(it scripts reserve\(\), charge\(\), store\(\), version\(\), hold\(\)\)/],
  ["unmatched", "service_fetch_unmatched", /service binding ORDERS: fetch POST \/nowhere: its service step scripts no route for it/],
  ["pipelined", "rpc_pipelining", /service binding ORDERS: store\(\)'s result was used before it was awaited \(\.get\)/],
  ["socket", "service_connect", /service binding ORDERS: connect\(\) opens a socket/],
  ["unset", "binding_without_setup", /service binding PLAIN was touched \(\.reserve\) but no setup step resets it; add service\("PLAIN", \{\.\.\.\}\)/],
])) {
  test(`${method}: UNSUPPORTED (${cause})`, async () => {
    const result = await host.run(plan(method));
    assert.equal(result.end.kind, "unsupported", JSON.stringify(result.end));
    assert.equal(result.end.cause, cause);
    assert.match(result.end.detail, detail);
    // A pipelined call's first call went out (it reached the callee); nothing else did.
    assert.deepEqual(payloads(result.effects, "result"), method === "pipelined" ? [{ ok: true, value: { name: "s-1" } }] : [], "nothing else reached the callee");
  });
}
