// @ts-check
/**
 * The virtual globals draw from the run's stream as documented and are put back exactly,
 * including after a run that threw. Checked in Node, whose globals the module patches the
 * same way it patches workerd's.
 */

import assert from "node:assert/strict";
import test from "node:test";

import { EPOCH_MS, VirtualClock, VirtualGlobals } from "../globals.mjs";
import { Xoshiro128 } from "../prng.mjs";

const WORDS = [0x9e3779b9, 0x243f6a88, 0xb7e15162, 0x12345678];

function make(/** @type {string[]} */ unsupported = []) {
  const clock = new VirtualClock();
  let owner = "inv";
  const globals = new VirtualGlobals(WORDS, clock, {
    current: () => owner, unsupported: (cause) => { unsupported.push(cause); }, work: (promise) => promise,
  });
  return { clock, globals, setOwner: (/** @type {string} */ o) => { owner = o; } };
}

test("the clock starts at the epoch and Date, Date.now and performance.now follow it", () => {
  const realDate = Date;
  const { clock, globals } = make();
  globals.install();
  try {
    assert.equal(Date.now(), EPOCH_MS);
    assert.equal(new Date().toISOString(), "2026-01-01T00:00:00.000Z");
    assert.equal(new Date(0).getTime(), 0);
    assert.ok(new Date() instanceof realDate);
    assert.equal(typeof Date(), "string");
    clock.advance(5);
    assert.equal(Date.now(), EPOCH_MS + 5);
    assert.equal(performance.now(), 5);
  } finally {
    globals.restore();
  }
  assert.equal(Date, realDate);
});

test("Math.random, getRandomValues and randomUUID draw from the stream as documented", () => {
  const realRandom = Math.random, realUUID = crypto.randomUUID;
  const { globals } = make();
  const expected = new Xoshiro128(WORDS);
  globals.install();
  try {
    assert.equal(Math.random(), expected.random());
    const bytes = crypto.getRandomValues(new Uint8Array(6));
    const w1 = expected.nextU32(), w2 = expected.nextU32();
    assert.deepEqual(Array.from(bytes), [w1 & 255, (w1 >>> 8) & 255, (w1 >>> 16) & 255, w1 >>> 24, w2 & 255, (w2 >>> 8) & 255]);
    const uuid = crypto.randomUUID();
    assert.match(uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const w = [expected.nextU32(), expected.nextU32(), expected.nextU32(), expected.nextU32()];
    const raw = w.flatMap((word) => [0, 8, 16, 24].map((shift) => (word >>> shift) & 255));
    assert.equal(uuid.slice(0, 8), raw.slice(0, 4).map((b) => b.toString(16).padStart(2, "0")).join(""));
    assert.equal(Math.random(), expected.random(), "the stream continues after the UUID");
  } finally {
    globals.restore();
  }
  assert.equal(Math.random, realRandom);
  assert.equal(crypto.randomUUID, realUUID);
});

test("timers fire in due order, equal due times in the order set, moving the clock", () => {
  const { clock, globals } = make();
  /** @type {string[]} */
  const fired = [];
  globals.install();
  try {
    setTimeout(() => fired.push("b@10"), 10);
    setTimeout(() => fired.push("a@5"), 5);
    setTimeout(() => fired.push("c@10"), 10);
    const cancelled = setTimeout(() => fired.push("never"), 1);
    clearTimeout(cancelled);
    while (globals.fireNext("inv"));
    assert.deepEqual(fired, ["a@5", "b@10", "c@10"]);
    assert.equal(clock.now, EPOCH_MS + 10);
    let ticks = 0;
    const interval = setInterval(() => { if (++ticks === 3) clearInterval(interval); }, 100);
    while (globals.fireNext("inv"));
    assert.equal(ticks, 3);
    assert.equal(clock.now, EPOCH_MS + 310);
  } finally {
    globals.restore();
  }
});

test("what a timer's callback returns is handed to the fired hook with the timer's owner", () => {
  const clock = new VirtualClock();
  /** @type {[unknown, unknown][]} */
  const heard = [];
  const globals = new VirtualGlobals(WORDS, clock, {
    current: () => "object-work", unsupported: () => {}, work: (promise) => promise,
    fired: (owner, result) => heard.push([owner, result]),
  });
  globals.install();
  try {
    setTimeout(() => "returned", 5);
    assert.equal(globals.fireNext("object-work"), true);
    assert.deepEqual(heard, [["object-work", "returned"]]);
  } finally {
    globals.restore();
  }
});

test("another invocation's timers are not fired, and dropping them forgets them", () => {
  const { globals, setOwner } = make();
  globals.install();
  try {
    setTimeout(() => {}, 1);
    setOwner("other");
    assert.equal(globals.fireNext("other"), false);
    globals.dropTimers("inv");
    assert.equal(globals.fireNext("inv"), false);
  } finally {
    globals.restore();
  }
});

test("WeakRef and FinalizationRegistry still work but mark the run", () => {
  /** @type {string[]} */
  const marks = [];
  const { globals } = make(marks);
  const RealWeakRef = WeakRef;
  globals.install();
  try {
    const target = {};
    assert.equal(new WeakRef(target).deref(), target);
    new FinalizationRegistry(() => {});
  } finally {
    globals.restore();
  }
  assert.deepEqual(marks, ["weakref", "weakref"]);
  assert.equal(WeakRef, RealWeakRef);
});

test("restore puts everything back even when the run threw", () => {
  const before = [Date, Math.random, crypto.getRandomValues, crypto.randomUUID, performance.now, setTimeout, clearTimeout, setInterval, clearInterval];
  const { globals } = make();
  assert.throws(() => {
    globals.install();
    try {
      throw new Error("user code failed");
    } finally {
      globals.restore();
    }
  }, /user code failed/);
  assert.deepEqual([Date, Math.random, crypto.getRandomValues, crypto.randomUUID, performance.now, setTimeout, clearTimeout, setInterval, clearInterval], before);
  assert.equal(Object.prototype.hasOwnProperty.call(crypto, "randomUUID"), false, "no own shadow is left behind");
});
