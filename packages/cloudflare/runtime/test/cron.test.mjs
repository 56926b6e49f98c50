// @ts-check
/**
 * The cron drive (cron.mjs): each tick attempt one invocation of scheduled() at the tick's
 * virtual time, noRetry() a decision point, the declared re-runs of a failed tick, on a real
 * Miniflare through the host, with plans as Python sends them.
 */

import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";

import { FIXTURES, HostProcess, drivePlan, fixtureLoad, useHost } from "./helpers.mjs";

const FIXTURE = path.join(FIXTURES, "cron");
const EPOCH = 1767225600000;

const host = useHost(fixtureLoad(FIXTURE, { d1Databases: { DB: "cron-db" } }));

/**
 * A plan whose drive fires `cron` at each of `atMs`, as eutaxy.cloudflare.cron writes it.
 * @param {{cron: string, atMs?: number[], retries?: number, policy?: object, prefix?: number[], bounds?: object}} options
 */
function plan(options) {
  const events = (options.atMs ?? [0]).map((atMs, index) => ({ id: `tick-${index + 1}`, atMs }));
  return drivePlan({
    seed: "test",
    name: "cron",
    drive: { kind: "cron", name: "cron", cron: options.cron, retries: options.retries ?? 0, events },
    bounds: { maxFaultsPerRun: 1, maxRedeliveries: 10, maxConcurrentInvocations: 1, budgetMs: 5000, effectHangMs: 5000, ...(options.bounds ?? {}) },
    prefix: options.prefix,
    policy: options.policy,
    maxFaults: 1,
  });
}

/** @param {any[]} effects */
function brief(effects) {
  return effects.filter((e) => e.kind !== "snapshot" && e.kind !== "call").map((e) => `${e.invocation}/${e.ordinal} ${e.target} ${e.op} ${e.kind}${e.kind === "fault" ? ":" + e.payload.fault : ""}`);
}

/** @param {any[]} effects */
function ticks(effects) {
  return effects.find((e) => e.kind === "snapshot" && e.op === "ticks").payload.rows.map((/** @type {any} */ row) => [row.scheduled_time - EPOCH, row.cron, row.now - EPOCH]);
}

test("each tick is one invocation of scheduled() at its virtual time, scheduledTime and the clock agreeing", async () => {
  const result = await host.runCompleted(plan({ cron: "*/5 * * * *", atMs: [0, 300000] }));
  assert.deepEqual(brief(result.effects), ["tick-1#1/0 D1:DB run result", "tick-2#1/0 D1:DB run result"]);
  assert.deepEqual(ticks(result.effects), [[0, "*/5 * * * *", 0], [300000, "*/5 * * * *", 300000]]);
  assert.deepEqual(result.invocations.map((/** @type {any} */ i) => [i.invocation, i.drive, i.outcome]), [["tick-1#1", "cron", "returned"], ["tick-2#1", "cron", "returned"]]);
});

test("a failed tick runs again at once, keeping its scheduledTime, until the declared retries are spent", async () => {
  const result = await host.runCompleted(plan({ cron: "fail", atMs: [60000], retries: 2 }));
  assert.deepEqual(brief(result.effects), [
    "tick-1#1/0 D1:DB run result",
    "tick-1#2/0 D1:DB run result",
    "tick-1#3/0 D1:DB run result",
    "tick-1#3/1 Cron:cron gave_up result",
  ]);
  const gaveUp = result.effects.find((/** @type {any} */ e) => e.op === "gave_up" && e.kind === "result");
  assert.deepEqual(gaveUp.payload.args, { tickId: "tick-1", attempts: 3 });
  // Every re-run reports the tick's own time; the clock has moved on by the points made since.
  assert.deepEqual(ticks(result.effects).map(([scheduled]) => scheduled), [60000, 60000, 60000]);
  assert.deepEqual(result.invocations.map((/** @type {any} */ i) => i.outcome), ["threw", "threw", "threw"]);
});

test("with no retries a failed tick is given up after its one attempt", async () => {
  const result = await host.runCompleted(plan({ cron: "fail", retries: 0 }));
  assert.deepEqual(brief(result.effects), ["tick-1#1/0 D1:DB run result", "tick-1#1/1 Cron:cron gave_up result"]);
});

test("maxRedeliveries below the retries cuts the tick rather than giving it up", async () => {
  const result = await host.runCompleted(plan({ cron: "fail", retries: 3, bounds: { maxRedeliveries: 1 } }));
  assert.deepEqual(brief(result.effects), ["tick-1#1/0 D1:DB run result", "tick-1#2/0 D1:DB run result"]);
  assert.deepEqual(result.cuts, [{ bound: "maxRedeliveries", where: "Cron:cron", invocation: "tick-1#2", left: ["tick-1"], limit: 1, platformLimit: 3 }]);
});

test("noRetry() is a decision point, and a tick that called it is not run again", async () => {
  const result = await host.runCompleted(plan({ cron: "no-retry", retries: 2 }));
  assert.deepEqual(brief(result.effects), ["tick-1#1/0 D1:DB run result", "tick-1#1/1 Cron:cron no_retry result"]);
  const decision = result.effects.find((/** @type {any} */ e) => e.op === "no_retry" && e.kind === "result");
  assert.deepEqual(decision.payload, { args: { tickId: "tick-1", scheduledTime: EPOCH }, result: { effective: true } });
  assert.deepEqual(result.decisions.map((/** @type {any} */ d) => d.options), [
    ["none", "crash_before", "crash_after", "ambiguous", "error"],
    ["none", "crash_before", "crash_after"],
  ]);
});

test("noRetry() crashed before it took effect: the tick runs again; crashed after: it does not", async () => {
  const before = await host.runCompleted(plan({ cron: "no-retry", retries: 2, prefix: [0, 1] }));
  assert.deepEqual(brief(before.effects), [
    "tick-1#1/0 D1:DB run result",
    "tick-1#1/1 Cron:cron no_retry fault:crash_before",
    "tick-1#2/0 D1:DB run result",
    "tick-1#2/1 Cron:cron no_retry result",
  ]);
  const after = await host.runCompleted(plan({ cron: "no-retry", retries: 2, prefix: [0, 2] }));
  assert.deepEqual(brief(after.effects), [
    "tick-1#1/0 D1:DB run result",
    "tick-1#1/1 Cron:cron no_retry result",
    "tick-1#1/1 Cron:cron no_retry fault:crash_after",
  ]);
  assert.deepEqual(after.invocations.map((/** @type {any} */ i) => i.outcome), ["crashed"]);
});

test("a crash in scheduled() fails the tick like a throw", async () => {
  const result = await host.runCompleted(plan({ cron: "* * * * *", retries: 1, prefix: [2] }));
  assert.deepEqual(brief(result.effects), [
    "tick-1#1/0 D1:DB run result",
    "tick-1#1/0 D1:DB run fault:crash_after",
    "tick-1#2/0 D1:DB run result",
  ]);
});

test("waitUntil work runs past the background point and does not fail the tick", async () => {
  const result = await host.runCompleted(plan({ cron: "later", retries: 1 }));
  // The background write opened its point (#1) before the handler returned, so the background point is #2.
  assert.deepEqual(brief(result.effects), [
    "tick-1#1/0 D1:DB run result",
    "tick-1#1/2 Cron:cron background result",
    "tick-1#1/1 D1:DB run result",
  ]);
  assert.deepEqual(result.invocations.map((/** @type {any} */ i) => i.outcome), ["returned"]);
  // cut_off there: the write in flight commits; the tick is not run again.
  const cut = await host.runCompleted(plan({ cron: "later", retries: 1, policy: { kind: "replay", faults: [{ invocation: "tick-1#1", ordinal: 2, fault: "cut_off" }], turns: [], batches: [] } }));
  assert.deepEqual(brief(cut.effects).filter((line) => !line.startsWith("tick-1#1/1")), ["tick-1#1/0 D1:DB run result", "tick-1#1/2 Cron:cron background fault:cut_off"]);
  assert.equal(cut.effects.some((/** @type {any} */ e) => e.invocation === "tick-1#2"), false);
});

test("a Worker without scheduled() is a user error for the cron drive", async () => {
  const other = new HostProcess();
  try {
    await other.ok(fixtureLoad(FIXTURE, { entry: path.join(FIXTURE, "no-scheduled.ts"), d1Databases: { DB: "cron-db" } }));
    const answer = await other.request({ op: "run", plan: plan({ cron: "* * * * *" }) });
    assert.equal(answer.ok, false);
    assert.equal(answer.user, true);
    assert.match(answer.error, /no scheduled\(\) handler/);
  } finally {
    await other.close();
  }
});
