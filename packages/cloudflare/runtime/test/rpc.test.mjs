// @ts-check
/**
 * The rpc drive (rpc.mjs): each call attempt one invocation constructing the entrypoint anew
 * and calling its method; the answer a response point; an exception reaches the caller as RPC
 * carries it (bindings/service.mjs `thrownAcross`); the declared caller's resends and deadline, as the http drive's. On a
 * real Miniflare through the host, with plans as Python sends them.
 */

import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";

import { FIXTURES, drivePlan, fixtureLoad, useHost } from "./helpers.mjs";

const FIXTURE = path.join(FIXTURES, "rpc");

const host = useHost(fixtureLoad(FIXTURE, { d1Databases: { DB: "rpc-db" } }));

/**
 * @param {{calls: {method: string, args?: unknown[]}[], entrypoint?: string | null, caller?: object, policy?: object, bounds?: object}} options
 */
function plan(options) {
  const events = options.calls.map((call, index) => ({ id: `call-${index + 1}`, method: call.method, args: call.args ?? [] }));
  return drivePlan({
    seed: "test",
    name: "rpc",
    drive: { kind: "rpc", name: "rpc", entrypoint: options.entrypoint === undefined ? "Tally" : options.entrypoint, events, caller: { retries: 0, delaysMs: [], deadlineMs: null, ...(options.caller ?? {}) } },
    bounds: { maxFaultsPerRun: 1, maxRedeliveries: 10, maxConcurrentInvocations: 1, budgetMs: 5000, effectHangMs: 5000, ...(options.bounds ?? {}) },
    policy: options.policy,
    maxFaults: 1,
  });
}

/** @param {any[]} effects */
function brief(effects) {
  return effects.filter((e) => e.kind !== "snapshot" && e.kind !== "call").map((e) => `${e.invocation}/${e.ordinal} ${e.target} ${e.op} ${e.kind}${e.kind === "fault" ? ":" + e.payload.fault : ""}`);
}

/** @param {any[]} effects */
function answers(effects) {
  return effects.filter((e) => e.op === "response" && e.kind === "result").map((e) => e.payload);
}

test("each call constructs the named entrypoint anew and its answer is the response point", async () => {
  const result = await host.runCompleted(plan({ calls: [{ method: "add", args: ["a", 1] }, { method: "add", args: ["b", 2] }] }));
  assert.deepEqual(brief(result.effects), [
    "call-1#1/0 D1:DB run result",
    "call-1#1/1 Rpc:Tally.add response result",
    "call-2#1/0 D1:DB run result",
    "call-2#1/1 Rpc:Tally.add response result",
  ]);
  const [first, second] = answers(result.effects);
  assert.deepEqual(first.args, { callId: "call-1", method: "add", args: ["a", 1] });
  assert.equal(first.result.ok, true);
  assert.deepEqual({ ...first.result.value, instance: 0 }, { key: "a", n: 1, now: 1767225600000, instance: 0 });
  assert.equal(second.result.value.instance, first.result.value.instance + 1, "each call constructs the entrypoint anew");
  assert.deepEqual(result.invocations.map((/** @type {any} */ i) => [i.invocation, i.drive, i.outcome]), [["call-1#1", "rpc", "returned"], ["call-2#1", "rpc", "returned"]]);
  assert.deepEqual(result.decisions.map((/** @type {any} */ d) => d.options.length), [5, 2, 5, 2]);
});

test("an error of the Worker's own name reaches the caller as RPC carries it, an Error named in its message", async () => {
  const result = await host.runCompleted(plan({ calls: [{ method: "decline", args: ["card declined"] }] }));
  assert.deepEqual(answers(result.effects)[0].result, { ok: false, error: { name: "Error", message: "Declined: card declined" } });
});

test("the default export is called when the drive names no entrypoint", async () => {
  const result = await host.runCompleted(plan({ entrypoint: null, calls: [{ method: "hello", args: ["ada"] }] }));
  assert.deepEqual(answers(result.effects), [{ args: { callId: "call-1", method: "hello", args: ["ada"] }, result: { ok: true, value: "hello ada" } }]);
  assert.equal(result.effects.find((/** @type {any} */ e) => e.op === "response").target, "Rpc:hello");
});

test("an exception reaches the caller as its name and message; the caller resends, then gives up", async () => {
  const result = await host.runCompleted(plan({ calls: [{ method: "refuse", args: ["no funds"] }], caller: { retries: 1, delaysMs: [1000] } }));
  assert.deepEqual(brief(result.effects), [
    "call-1#1/0 Rpc:Tally.refuse response result",
    "call-1#2/0 Rpc:Tally.refuse response result",
    "call-1#2/1 Rpc:Tally.refuse gave_up result",
  ]);
  assert.deepEqual(answers(result.effects)[0].result, { ok: false, error: { name: "RangeError", message: "no funds" } });
  const gaveUp = result.effects.find((/** @type {any} */ e) => e.op === "gave_up" && e.kind === "result");
  assert.deepEqual(gaveUp.payload.args, { callId: "call-1", attempts: 2 });
  const [first, second] = result.effects.filter((/** @type {any} */ e) => e.op === "response" && e.kind === "call");
  assert.equal(second.time - first.time >= 1000, true, "the resend waits its delay in virtual time");
});

test("an answer lost (crash_before at the response) is resent, and the write happens twice", async () => {
  const faults = [{ invocation: "call-1#1", ordinal: 1, fault: "crash_before" }];
  const result = await host.runCompleted(plan({ calls: [{ method: "add", args: ["a", 1] }], caller: { retries: 2 }, policy: { kind: "replay", faults, turns: [], batches: [] } }));
  assert.deepEqual(brief(result.effects), [
    "call-1#1/0 D1:DB run result",
    "call-1#1/1 Rpc:Tally.add response fault:crash_before",
    "call-1#2/0 D1:DB run result",
    "call-1#2/1 Rpc:Tally.add response result",
  ]);
});

test("with a deadline the response takes ambiguous, and an answer past it is resent", async () => {
  const ambiguous = await host.runCompleted(plan({
    calls: [{ method: "add", args: ["a", 1] }], caller: { retries: 1, deadlineMs: 5000 },
    policy: { kind: "replay", faults: [{ invocation: "call-1#1", ordinal: 1, fault: "ambiguous" }], turns: [], batches: [] },
  }));
  assert.deepEqual(brief(ambiguous.effects), [
    "call-1#1/0 D1:DB run result",
    "call-1#1/1 Rpc:Tally.add response result",
    "call-1#1/1 Rpc:Tally.add response fault:ambiguous",
    "call-1#2/0 D1:DB run result",
    "call-1#2/1 Rpc:Tally.add response result",
  ]);
  const late = await host.runCompleted(plan({ calls: [{ method: "slow", args: [3000] }], caller: { retries: 1, deadlineMs: 2000 } }));
  assert.deepEqual(brief(late.effects), [
    "call-1#1/0 D1:DB run result",
    "call-1#1/1 Rpc:Tally.slow response result",
    "call-1#2/0 D1:DB run result",
    "call-1#2/1 Rpc:Tally.slow response result",
    "call-1#2/2 Rpc:Tally.slow gave_up result",
  ]);
});

test("a result that is not plain data makes the run UNSUPPORTED", async () => {
  const result = await host.run(plan({ calls: [{ method: "capability" }] }));
  assert.equal(result.end.kind, "unsupported");
  assert.equal(result.end.cause, "not_plain_data");
  assert.match(result.end.detail, /Rpc:Tally\.capability returned something that is not plain data/);
});

for (const [entrypoint, method, words] of /** @type {const} */ ([
  ["Ledger", "add", /no export named Ledger/],
  ["Tally", "subtract", /has no method subtract\(\)/],
  [null, "add", /has no method add\(\)/],
])) {
  test(`an rpc drive to ${entrypoint ?? "the default export"}.${method}() the Worker lacks is a user error`, async () => {
    const answer = await host.request({ op: "run", plan: plan({ entrypoint, calls: [{ method }] }) });
    assert.equal(answer.ok, false);
    assert.equal(answer.user, true);
    assert.match(answer.error, words);
  });
}
