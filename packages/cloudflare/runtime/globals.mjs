// @ts-check
/**
 * Virtual clock, randomness and timers for the length of one run.
 *
 * Installed by plain assignment when a run starts and put back when it ends (in a
 * `finally`, so a run that throws restores them too). What each draws from the run's
 * "globals" stream (xoshiro128**, seeded by the plan's four words):
 * - `Math.random()`: one word, `word / 2**32`.
 * - `crypto.getRandomValues(view)`: ceil(byteLength / 4) words, each written
 *   little-endian into the view's bytes in order; the last word's surplus bytes are dropped.
 * - `crypto.randomUUID()`: four words as 16 bytes (as above), then the version (4) and
 *   variant (10xx) bits are set, formatted 8-4-4-4-12 in lower-case hex.
 * - `Date`, `Date.now()`, `performance.now()`, the timers and `crypto.subtle` draw nothing.
 * Time: `Date.now()` is the virtual now (epoch 2026-01-01T00:00:00Z, +1 ms per completed
 * effect point, jumping to a timer's due time when it fires); `new Date()` is that instant,
 * `Date()` its string; `performance.now()` is the virtual milliseconds since the run began.
 * Timers: `setTimeout`/`setInterval` register virtual timers owned by the invocation that set
 * them; the drive fires them in due order (equal due times in the order set) only while the
 * invocation waits on nothing else, moving the clock to the due time. A finished invocation's
 * pending timers are dropped, as the runtime drops a finished request's. workerd's
 * `scheduler.wait(ms)` is a virtual timer too.
 * `crypto.subtle` stays real; the drive waits for its promises as for an effect's I/O
 * (unrecorded, never faulted), so no timer fires while one is running.
 * `WeakRef` and `FinalizationRegistry` keep working but make the run UNSUPPORTED (cause
 * `weakref`): collection is not virtualised. An outbound `fetch` is answered by the
 * scenario's declared externals (fetch.mjs, bindings/externals.mjs); one no external answers
 * is UNSUPPORTED (`outbound_request`), as is the Cache API (`caches`, `binding_not_allowed`;
 * see unsupported.mjs).
 */

import { originals, realConsole } from "./patch.mjs";
import { assert } from "./assert.mjs";
import { Xoshiro128 } from "./prng.mjs";
import { TimerQueue } from "./timers.mjs";

/** 2026-01-01T00:00:00Z, the virtual epoch. */
export const EPOCH_MS = 1767225600000;

/** A run fires at most this many timer callbacks, so a self-rearming interval cannot spin forever. */
export const MAX_TIMER_FIRES = 10000;

/** The SubtleCrypto methods whose promises the drive waits for. */
const SUBTLE_METHODS = ["encrypt", "decrypt", "sign", "verify", "digest", "generateKey", "deriveKey", "deriveBits", "importKey", "exportKey", "wrapKey", "unwrapKey"];

export class VirtualClock {
  constructor() {
    this.now = EPOCH_MS;
  }
  /** @param {number} ms */
  advance(ms) {
    assert(ms >= 0, () => `the virtual clock was moved back by ${-ms} ms`);
    this.now += ms;
  }
}

/**
 * @typedef {{id: number, due: number, seq: number, callback: Function, args: unknown[],
 *   interval: number | null, owner: unknown}} Timer
 */

export class VirtualGlobals {
  /**
   * @param {number[]} words the "globals" stream's state
   * @param {VirtualClock} clock
   * @param {{current: () => unknown, unsupported: (cause: string, detail: string) => void,
   *   work: (promise: Promise<unknown>) => Promise<unknown>, fired?: (owner: unknown, result: unknown) => void}} hooks
   *   `current` names the owner of a timer set now; `fired` hears what a timer's callback returned
   */
  constructor(words, clock, hooks) {
    this.stream = new Xoshiro128(words);
    this.clock = clock;
    this.hooks = hooks;
    this.startMs = clock.now;
    /** @type {TimerQueue<Timer>} the virtual timers set and not yet fired or cleared */
    this.timers = new TimerQueue();
    this.nextTimerId = 1;
    this.timerFires = 0;
    /** @type {(() => void)[]} undo steps, run in reverse by restore() */
    this.undo = [];
  }

  /** Fill a byte view from the stream, one little-endian word per four bytes. @param {Uint8Array} bytes */
  fillBytes(bytes) {
    for (let i = 0; i < bytes.length; i += 4) {
      const word = this.stream.nextU32();
      for (let k = 0; k < 4 && i + k < bytes.length; k++) bytes[i + k] = (word >>> (8 * k)) & 0xff;
    }
  }

  /** Install every virtual global. Idempotent per instance; undone by restore(). */
  install() {
    const self = this;
    const clock = this.clock;
    const RealDate = originals.Date;
    /** @this {unknown} @param {unknown[]} args */
    function VirtualDate(...args) {
      if (new.target === undefined) return new RealDate(clock.now).toString();
      return Reflect.construct(RealDate, args.length === 0 ? [clock.now] : args, new.target);
    }
    VirtualDate.prototype = RealDate.prototype;
    VirtualDate.now = () => clock.now;
    VirtualDate.parse = RealDate.parse;
    VirtualDate.UTC = RealDate.UTC;
    Object.defineProperty(VirtualDate, "name", { value: "Date" });
    this.set(globalThis, "Date", VirtualDate);
    this.set(Math, "random", () => self.stream.random());
    const crypto = originals.crypto;
    if (crypto) {
      this.set(crypto, "getRandomValues", (/** @type {ArrayBufferView} */ view) => {
        if (!ArrayBuffer.isView(view) || view instanceof Float32Array || view instanceof Float64Array || view instanceof DataView) {
          throw new TypeError("getRandomValues needs an integer typed array");
        }
        if (view.byteLength > 65536) throw new RangeError("getRandomValues: more than 65536 bytes requested");
        self.fillBytes(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
        return view;
      });
      this.set(crypto, "randomUUID", () => {
        const bytes = new Uint8Array(16);
        self.fillBytes(bytes);
        bytes[6] = (bytes[6] & 0x0f) | 0x40;
        bytes[8] = (bytes[8] & 0x3f) | 0x80;
        const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
        return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
      });
    }
    if (originals.performance) this.set(originals.performance, "now", () => clock.now - self.startMs);
    // A performance object the Worker's build put in place at load reads the virtual clock too:
    // wrangler's nodejs_compat build replaces globalThis.performance with unenv's, whose now()
    // reads the real one.
    const installed = /** @type {any} */ (globalThis).performance;
    if (installed && installed !== originals.performance && typeof installed.now === "function") {
      this.set(installed, "now", () => clock.now - self.startMs);
    }
    this.set(globalThis, "setTimeout", (/** @type {Function} */ callback, /** @type {number} */ delay, /** @type {unknown[]} */ ...args) => self.addTimer(callback, delay, args, false));
    this.set(globalThis, "setInterval", (/** @type {Function} */ callback, /** @type {number} */ delay, /** @type {unknown[]} */ ...args) => self.addTimer(callback, delay, args, true));
    const clear = (/** @type {unknown} */ id) => {
      self.timers.removeWhere((timer) => timer.id === Number(id));
    };
    this.set(globalThis, "clearTimeout", clear);
    this.set(globalThis, "clearInterval", clear);
    const hooks = this.hooks;
    // workerd's scheduler.wait(ms) is a timer too.
    const scheduler = /** @type {any} */ (globalThis).scheduler;
    if (scheduler && typeof scheduler.wait === "function") {
      this.set(scheduler, "wait", (/** @type {number} */ ms) => new Promise((resolve) => { self.addTimer(resolve, ms, [], false); }));
    }
    // Web Crypto is real work the drive waits for (like an effect's I/O), never recorded or faulted.
    const subtle = crypto?.subtle;
    if (subtle) {
      for (const name of SUBTLE_METHODS) {
        const real = subtle[name];
        if (typeof real !== "function") continue;
        this.set(subtle, name, (/** @type {unknown[]} */ ...args) => hooks.work(real.apply(subtle, args)));
      }
    }
    for (const name of /** @type {const} */ (["WeakRef", "FinalizationRegistry"])) {
      const Real = originals[name];
      if (!Real) continue;
      /** @param {unknown[]} args */
      function Trapped(...args) {
        hooks.unsupported("weakref", `${name} was used; garbage collection is not virtualised`);
        return Reflect.construct(Real, args, new.target ?? Real);
      }
      Trapped.prototype = Real.prototype;
      this.set(globalThis, name, Trapped);
    }
  }

  /** Put every global back as it was before install(). Safe to call twice. */
  restore() {
    const undo = this.undo;
    this.undo = [];
    for (let i = undo.length - 1; i >= 0; i--) {
      try {
        undo[i]();
      } catch {
        // Keep restoring the rest; a failed step leaves that one global as the run had it.
      }
    }
    this.timers.clear();
  }

  /**
   * Replace one property, remembering how to undo it exactly: an own property is put back
   * with its descriptor, an inherited one (workerd keeps many globals on prototypes) by
   * deleting the own shadow.
   * @param {object} object @param {string} name @param {unknown} value
   */
  set(object, name, value) {
    const own = Object.getOwnPropertyDescriptor(object, name);
    Object.defineProperty(object, name, { value, writable: true, configurable: true, enumerable: own ? own.enumerable : false });
    this.undo.push(() => {
      if (own) Object.defineProperty(object, name, own);
      else delete (/** @type {any} */ (object))[name];
    });
  }

  /** @param {Function} callback @param {number} delay @param {unknown[]} args @param {boolean} repeat */
  addTimer(callback, delay, args, repeat) {
    if (typeof callback !== "function") throw new TypeError("eutaxy: setTimeout with a string body is not supported");
    const ms = Math.max(0, Math.floor(Number(delay) || 0));
    const id = this.nextTimerId++;
    this.timers.add({ id, due: this.clock.now + ms, callback, args, interval: repeat ? Math.max(1, ms) : null, owner: this.hooks.current() });
    return id;
  }

  /** @param {unknown} owner */
  hasTimers(owner) {
    return this.timers.some((timer) => timer.owner === owner);
  }

  /** @param {unknown} owner drop the timers a finished invocation left */
  dropTimers(owner) {
    this.timers.removeWhere((timer) => timer.owner === owner);
  }

  /**
   * Fire the earliest timer of `owner` (due order, then the order set), moving the clock to
   * its due time if that is later. Returns false when it has none.
   * @param {unknown} owner
   */
  fireNext(owner) {
    return this.fire(this.timers.earliest((timer) => timer.owner === owner));
  }

  /**
   * Fire one timer (the earliest of its owner), moving the clock to its due time if that is
   * later. Returns false when there is none, or the run's timer limit is reached.
   * @param {Timer | null} timer
   */
  fire(timer) {
    if (!timer) return false;
    if (++this.timerFires > MAX_TIMER_FIRES) {
      this.hooks.unsupported("timer_limit", `more than ${MAX_TIMER_FIRES} timer callbacks fired in one run`);
      return false;
    }
    if (timer.due > this.clock.now) this.clock.now = timer.due;
    if (timer.interval === null) this.timers.remove(timer);
    else this.timers.rearm(timer, this.clock.now + timer.interval);
    try {
      const result = timer.callback(...timer.args);
      this.hooks.fired?.(timer.owner, result);
    } catch (error) {
      realConsole.error("eutaxy: a timer callback threw:", error);
    }
    return true;
  }
}
