// @ts-check
/**
 * The turn scheduler (scheduler/turns.mjs) on its own, in Node: a real Run (virtual clock, plan follower) with
 * deliveries that make no effects, to pin what the scheduler does when nothing can move.
 */

import assert from "node:assert/strict";
import { test } from "node:test";

import { Run } from "../run.mjs";
import { barePlan } from "./helpers.mjs";

const EPOCH = 1767225600000;

function concurrentRun() {
  return new Run(barePlan({ maxConcurrentInvocations: 2 }), {}, {});
}

/** A concurrent run, its turn scheduler (whose alarms the tests set), and a log of what happened at which virtual ms. */
function alarmedRun() {
  const run = concurrentRun();
  const turns = /** @type {import("../scheduler/turns.mjs").TurnScheduler} */ (run.scheduler);
  /** @type {[string, number][]} */
  const log = [];
  const at = (/** @type {string} */ what) => log.push([what, run.clock.now - EPOCH]);
  return { run, turns, log, at };
}

test("when nothing can move, time passes to a delayed event and it starts then", async () => {
  const run = concurrentRun();
  const ready = [{ id: "e1", due: EPOCH }, { id: "e2", due: EPOCH + 50 }];
  /** @type {[string, number][]} */
  const started = [];
  await /** @type {import("../scheduler/turns.mjs").TurnScheduler} */ (run.scheduler).drive({
    next: () => (ready.length && ready[0].due <= run.clock.now ? ready[0].id : null),
    wake: () => (ready.length ? ready[0].due : null),
    start: async () => {
      const event = /** @type {{id: string}} */ (ready.shift());
      const inv = run.startInvocation(`${event.id}#1`);
      started.push([event.id, run.clock.now]);
      await run.scheduler.settle(inv, Promise.resolve());
      run.endInvocation(inv);
    },
  });
  assert.equal(run.unsupported, null);
  assert.deepEqual(started, [["e1", EPOCH], ["e2", EPOCH + 50]]);
  assert.deepEqual(run.follower.decisions.map((d) => d.options), [[{ kind: "start", event: "e1" }], [{ kind: "start", event: "e2" }]]);
});

test("a delivery waiting on nothing Eutaxy can see makes the run UNSUPPORTED", async () => {
  const run = concurrentRun();
  let left = 1;
  await /** @type {import("../scheduler/turns.mjs").TurnScheduler} */ (run.scheduler).drive({
    next: () => (left > 0 ? "e1" : null),
    start: async () => {
      left--;
      const inv = run.startInvocation("e1#1");
      await run.scheduler.settle(inv, new Promise(() => {}));
      run.endInvocation(inv);
    },
  });
  assert.equal(run.unsupported?.cause, "unseen_wait");
  assert.match(run.unsupported?.detail ?? "", /e1#1/);
});

test("each delivery's async context names its invocation, across awaits", async () => {
  const run = concurrentRun();
  const ids = ["e1", "e2"];
  /** @type {string[]} */
  const seen = [];
  await /** @type {import("../scheduler/turns.mjs").TurnScheduler} */ (run.scheduler).drive({
    next: () => ids[0] ?? null,
    start: async () => {
      const id = /** @type {string} */ (ids.shift());
      const inv = run.startInvocation(`${id}#1`);
      await run.scheduler.settle(inv, (async () => {
        await null;
        seen.push(`${id}:${run.current?.id}`);
      })());
      run.endInvocation(inv);
    },
  });
  assert.deepEqual(seen.sort(), ["e1:e1#1", "e2:e2#1"]);
  assert.equal(run.current, null);
});

test("alarms: time passes to the earliest; a delayed event or a timer due at an alarm's instant comes first", async () => {
  const { run, turns, log, at } = alarmedRun();
  turns.alarm(EPOCH + 10, () => at("alarm 10"));
  turns.alarm(EPOCH + 5, () => at("alarm 5"));
  const cancelled = turns.alarm(EPOCH + 7, () => at("alarm 7"));
  cancelled();
  const ready = [{ id: "e1", due: EPOCH }, { id: "e2", due: EPOCH + 5 }];
  await turns.drive({
    next: () => (ready.length && ready[0].due <= run.clock.now ? ready[0].id : null),
    wake: () => (ready.length ? ready[0].due : null),
    start: async () => {
      const event = /** @type {{id: string}} */ (ready.shift());
      const inv = run.startInvocation(`${event.id}#1`);
      at(`start ${event.id}`);
      // e1 waits on a virtual timer due with the last alarm.
      const wait = event.id === "e1" ? new Promise((resolve) => run.globals.addTimer(() => { at("timer 10"); resolve(null); }, 10, [], false)) : Promise.resolve();
      await run.scheduler.settle(inv, wait);
      run.endInvocation(inv);
    },
  });
  assert.equal(run.unsupported, null);
  assert.deepEqual(log, [["start e1", 0], ["start e2", 5], ["alarm 5", 5], ["timer 10", 10], ["alarm 10", 10]]);
  // Alarms are never turn options.
  assert.deepEqual(run.follower.decisions.map((d) => d.options), [[{ kind: "start", event: "e1" }], [{ kind: "start", event: "e2" }]]);
});

test("alarms the clock has passed fire before the next turn decision", async () => {
  const { run, turns, log, at } = alarmedRun();
  turns.alarm(EPOCH + 2, () => at("alarm 2"));
  turns.alarm(EPOCH + 3, () => at("alarm 3"));
  const ids = ["e1", "e2"];
  await turns.drive({
    next: () => ids[0] ?? null,
    start: async () => {
      const id = /** @type {string} */ (ids.shift());
      const inv = run.startInvocation(`${id}#1`);
      at(`start ${id}`);
      // As three effects would: the clock passes the first alarm and reaches the second.
      if (id === "e1") run.clock.advance(3);
      await run.scheduler.settle(inv, Promise.resolve());
      run.endInvocation(inv);
    },
  });
  // alarm 2 was passed, so it fired before e2's start; alarm 3 is due at the now of e2's
  // start, which comes first, and fires once nothing else can move.
  assert.deepEqual(log, [["start e1", 0], ["alarm 2", 3], ["start e2", 3], ["alarm 3", 3]]);
});

function sequentialRun() {
  return new Run(barePlan(), {}, {});
}

test("sequential: deliveries run one after another, time passing to a delayed event, with no turn decision", async () => {
  const run = sequentialRun();
  const ready = [{ id: "e1", due: EPOCH + 30 }, { id: "e2", due: EPOCH + 10 }];
  /** @type {[string, number, boolean][]} */
  const started = [];
  let inFlight = 0;
  await run.scheduler.drive({
    next: () => { const at = ready.findIndex((e) => e.due <= run.clock.now); return at < 0 ? null : ready[at].id; },
    wake: () => (ready.length ? Math.min(...ready.map((e) => e.due)) : null),
    start: async () => {
      const event = ready.splice(ready.findIndex((e) => e.due <= run.clock.now), 1)[0];
      const inv = run.startInvocation(`${event.id}#1`);
      started.push([event.id, run.clock.now - EPOCH, inFlight === 0]);
      inFlight++;
      await run.scheduler.settle(inv, Promise.resolve());
      inFlight--;
      run.endInvocation(inv);
      return false;
    },
  });
  assert.equal(run.unsupported, null);
  assert.deepEqual(started, [["e2", 10, true], ["e1", 30, true]]);
  assert.deepEqual(run.follower.decisions, []);
  assert.equal(run.scheduler.alarm(EPOCH + 5, () => {}), null);
});

test("sequential: an invocation waiting on nothing Eutaxy can see makes the run UNSUPPORTED, a virtual timer first firing", async () => {
  const run = sequentialRun();
  let left = 1;
  /** @type {number[]} */
  const fired = [];
  await run.scheduler.drive({
    next: () => (left > 0 ? "e1" : null),
    start: async () => {
      left--;
      const inv = run.startInvocation("e1#1");
      run.globals.addTimer(() => fired.push(run.clock.now - EPOCH), 25, [], false);
      await run.scheduler.settle(inv, new Promise(() => {}));
      run.endInvocation(inv);
      return run.stopped;
    },
  });
  assert.deepEqual(fired, [25]);
  assert.equal(run.unsupported?.cause, "unseen_wait");
  assert.match(run.unsupported?.detail ?? "", /e1#1/);
});
