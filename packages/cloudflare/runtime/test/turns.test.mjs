// @ts-check
/**
 * Concurrent invocations on a real Miniflare: the turn scheduler's decisions, the lost
 * update two interleaved read-modify-writes make, `more`, timers, Web Crypto and waits on
 * nothing, with the concurrent fixture (two D1 databases, a core module in specs).
 */

import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";

import { concurrentLoad, concurrentPlan } from "./concurrent_helpers.mjs";
import { useHost } from "./helpers.mjs";

const EPOCH = 1767225600000;

const host = useHost(concurrentLoad());

/** @param {any[]} effects @param {string} target */
function totals(effects, target = "D1:A") {
  const found = effects.find((e) => e.kind === "snapshot" && e.target === target && e.op === "counters");
  return found.payload.rows.map((/** @type {any} */ r) => `${r.id}=${r.total}`);
}

/** @param {any} result */
function turns(result) {
  return result.decisions.filter((/** @type {any} */ d) => d.kind === "turn");
}

/** @param {any[]} effects */
function brief(effects) {
  return effects.filter((e) => e.kind !== "snapshot" && e.kind !== "call").map((e) => `${e.invocation}/${e.ordinal} ${e.target} ${e.op} ${e.kind}`);
}

test("policy first runs the deliveries one after the other; every turn is a decision, single options too", async () => {
  const result = await host.run(concurrentPlan());
  assert.deepEqual(result.end, { kind: "completed" });
  const picks = turns(result);
  assert.deepEqual(picks[0], { kind: "turn", options: [{ kind: "start", event: "msg-1" }], chosen: 0, more: false });
  assert.deepEqual(picks[1].options, [{ kind: "effect", invocation: "msg-1#1", target: "D1:A" }, { kind: "start", event: "msg-2" }]);
  assert.ok(picks.every((/** @type {any} */ d) => d.chosen === 0 && d.more === false));
  assert.deepEqual(totals(result.effects), ["k=1000"]);
});

test("starting the second delivery before the first reads loses an update", async () => {
  // start msg-1, start msg-2, msg-1 reads, msg-2 reads (stale), then both write.
  const result = await host.run(concurrentPlan({ prefix: [0, 1, 0, 0] }));
  assert.deepEqual(result.end, { kind: "completed" });
  assert.deepEqual(totals(result.effects), ["k=400"]);
  assert.deepEqual(brief(result.effects), [
    "msg-1#1/0 D1:A first result",
    "msg-1#1/1 Core:decideTotal decide decision",
    "msg-1#1/1 Core:describe decide decision",
    "msg-2#1/0 D1:A first result",
    "msg-2#1/1 Core:decideTotal decide decision",
    "msg-2#1/1 Core:describe decide decision",
    "msg-1#1/1 D1:A run result",
    "msg-1#1/2 Queue:jobs ack result",
    "msg-2#1/1 D1:A run result",
    "msg-2#1/2 Queue:jobs ack result",
  ]);
  const decision = result.effects.find((/** @type {any} */ e) => e.target === "Core:decideTotal" && e.invocation === "msg-2#1");
  assert.deepEqual(decision.payload, { args: [0, 400], result: { total: 400 } });
  assert.equal(decision.time, EPOCH + 2);
});

test("seeded picks come from the turn stream: the same words give the same run, replay repeats its picks", async () => {
  // Well-mixed state words, as the SHA-256 derivation gives (tiny words start xoshiro slowly).
  const words = (/** @type {number} */ n) => [Math.imul(n, 0x9e3779b9) >>> 0, 0x85ebca6b, 0xc2b2ae35, (0x27d4eb2f ^ n) >>> 0];
  const seeded = concurrentPlan({ policy: { kind: "seeded", faults: {} }, turns: words(1) });
  const first = await host.run(seeded);
  const second = await host.run(seeded);
  assert.equal(JSON.stringify(first), JSON.stringify(second));
  const picks = turns(first).map((/** @type {any} */ d) => d.chosen);
  const replayed = await host.run(concurrentPlan({ policy: { kind: "replay", faults: [], turns: picks, batches: [] }, turns: [9, 9, 9, 9] }));
  assert.equal(JSON.stringify(replayed.effects), JSON.stringify(first.effects));
  // Some stream words interleave the two deliveries: across a few, both outcomes appear.
  const outcomes = new Set();
  for (let word = 1; word <= 12; word++) {
    const run = await host.run(concurrentPlan({ policy: { kind: "seeded", faults: {} }, turns: words(word) }));
    outcomes.add(totals(run.effects)[0]);
  }
  assert.ok(outcomes.has("k=1000") && outcomes.size > 1, [...outcomes].join(" "));
});

test("a turn that reads the clock or makes a synchronous effect reports more; start turns never do", async () => {
  const plain = await host.run(concurrentPlan());
  assert.ok(turns(plain).every((/** @type {any} */ d) => !d.more));
  const clock = await host.run(concurrentPlan({ events: [{ id: "msg-1", body: { key: "k", amount: 1, clock: true } }] }));
  const moreClock = turns(clock).filter((/** @type {any} */ d) => d.more);
  // The read's turn runs on to Date.now().
  assert.deepEqual(moreClock.map((/** @type {any} */ d) => d.options[d.chosen]), [{ kind: "effect", invocation: "msg-1#1", target: "D1:A" }]);
  const ack = await host.run(concurrentPlan({ events: [{ id: "msg-1", body: { key: "k", amount: 1, ack: true } }] }));
  assert.equal(turns(ack).filter((/** @type {any} */ d) => d.more).length, 1);
  // An ack is not a turn: the turns are the start, the read and the write.
  assert.equal(turns(ack).length, 3);
});

test("timers due at the same instant each reach their first effect before either is performed", async () => {
  const result = await host.run(concurrentPlan({
    events: [
      { id: "msg-1", body: { key: "k", amount: 1, sleepMs: 5 } },
      { id: "msg-2", body: { key: "k", amount: 2, sleepMs: 5 } },
    ],
    prefix: [0, 0],
  }));
  assert.deepEqual(result.end, { kind: "completed" });
  const picks = turns(result);
  // start msg-1 (it sleeps), start msg-2 (it sleeps); nothing can move, so msg-1's timer
  // fires, time passing to it; msg-2's is due then too, offered beside msg-1's read.
  assert.deepEqual(picks[2].options, [{ kind: "effect", invocation: "msg-1#1", target: "D1:A" }, { kind: "timer" }]);
  const firstRead = result.effects.find((/** @type {any} */ e) => e.target === "D1:A");
  assert.equal(firstRead.time, EPOCH + 5);
  assert.deepEqual(totals(result.effects), ["k=3"]);
});

test("Web Crypto is waited for, never faulted; a wait on nothing is UNSUPPORTED", async () => {
  const crypto = await host.run(concurrentPlan({ events: [{ id: "msg-1", body: { key: "k", amount: 1, digest: true } }, { id: "msg-2", body: { key: "k", amount: 2, digest: true } }] }));
  assert.deepEqual(crypto.end, { kind: "completed" });
  assert.deepEqual(totals(crypto.effects), ["k=3"]);
  const hang = await host.run(concurrentPlan({ events: [{ id: "msg-1", body: { key: "k", amount: 1, hang: true } }, { id: "msg-2", body: { key: "k", amount: 2 } }] }));
  assert.equal(hang.end.cause, "unseen_wait");
  assert.match(hang.end.detail, /msg-1#1/);
});

test("different targets: the deliveries' turns name their own databases", async () => {
  const result = await host.run(concurrentPlan({
    events: [{ id: "msg-1", body: { key: "k", amount: 1, db: "A" } }, { id: "msg-2", body: { key: "k", amount: 2, db: "B" } }],
    prefix: [0, 1],
  }));
  assert.deepEqual(turns(result)[2].options, [
    { kind: "effect", invocation: "msg-1#1", target: "D1:A" },
    { kind: "effect", invocation: "msg-2#1", target: "D1:B" },
  ]);
  assert.deepEqual(totals(result.effects, "D1:A"), ["k=1"]);
  assert.deepEqual(totals(result.effects, "D1:B"), ["k=2"]);
});

test("concurrency 1 stays sequential: no turn decisions", async () => {
  const result = await host.run(concurrentPlan({ concurrency: 1 }));
  assert.deepEqual(turns(result), []);
  assert.deepEqual(totals(result.effects), ["k=1000"]);
});

test("a crash in one delivery leaves the other running; turn and fault decisions share the list", async () => {
  // start msg-1, start msg-2, msg-1's read, then crash_before at that read.
  const result = await host.run(concurrentPlan({ prefix: [0, 1, 0, 1], maxFaults: 1 }));
  assert.deepEqual(result.end, { kind: "completed" });
  assert.deepEqual(result.decisions.slice(0, 4).map((/** @type {any} */ d) => d.kind), ["turn", "turn", "turn", "fault"]);
  assert.deepEqual(result.decisions[3].options, ["none", "crash_before", "crash_after", "error"]);
  assert.ok(result.effects.some((/** @type {any} */ e) => e.invocation === "msg-1#1" && e.kind === "fault" && e.payload.fault === "crash_before"));
  assert.ok(result.effects.some((/** @type {any} */ e) => e.op === "dead_letter" && e.payload.args.messageId === "msg-1"));
  assert.deepEqual(totals(result.effects), ["k=400"]);
});
