// @ts-check
/**
 * The sequential scheduler (`bounds.maxConcurrentInvocations` 1): one invocation in flight at
 * a time, fault decisions only (with nothing else able to move, there is no turn to decide).
 *
 * `drive` starts each delivery once the one before it has ended, from the first source with an
 * event ready: a binding record's own (a Durable Object's alarm, a message the Worker produced
 * onto a queue it consumes) before the drive's next; when nothing is ready, time passes to the
 * earliest delayed event of any source (`wake`). `settle` waits for one invocation: while an
 * effect's real I/O (or Web Crypto work) is in flight it waits for it (`waitForChange`, up to
 * the effect hang threshold: `effect_hung`). Otherwise it lets the isolate's event loop turn
 * once (a real zero timer, a few microseconds in workerd), so every continuation already set
 * off runs; if nothing changed and the handler has not settled, the invocation is idle: its
 * earliest virtual timer fires (the clock jumping to its due time), or, with none, it is
 * waiting on something Eutaxy cannot see and the run is UNSUPPORTED (`unseen_wait` after
 * IDLE_TURNS idle turns). A crash or an unsupported touch ends the wait at once.
 */

import { assert } from "../assert.mjs";
import { realTurn } from "../patch.mjs";
import { IDLE_TURNS, MAX_STEPS, waitForChange } from "../settle.mjs";
import { earliestWake, eventSources } from "./sources.mjs";

/**
 * @typedef {import("../effects.mjs").Invocation} Invocation
 * @typedef {import("../settle.mjs").Outcome} Outcome
 */

export class SequentialScheduler {
  /** @param {import("../run.mjs").Run} run */
  constructor(run) {
    this.run = run;
    /** @type {Invocation | null} the invocation in flight; at most one at a time */
    this.current = null;
  }

  /**
   * The drive's source and the binding records' own (`run.eventSources`: alarms, produced
   * messages): a record's event due now goes before the drive's next, and the drive ends once
   * none has anything left.
   * @param {import("./scheduler.mjs").Source} source
   */
  async drive(source) {
    const run = this.run;
    const sources = eventSources(run, source);
    for (let step = 0; step < MAX_STEPS; step++) {
      if (run.stopped) return;
      // The first source with an event ready starts it: the records' before the drive's.
      const ready = sources.find((candidate) => candidate.next() !== null);
      if (!ready) {
        // Nothing ready: time passes to the earliest delayed event, if there is one.
        const wake = earliestWake(sources, run.clock.now);
        if (wake === null) return;
        run.clock.now = wake;
        continue;
      }
      if (await ready.start()) return;
    }
    assert(false, `a sequential drive made more than ${MAX_STEPS} deliveries; its own bound should have ended it`);
  }

  /** @param {Invocation} inv */
  bind(inv) {
    assert(this.current === null, () => `invocation ${inv.id} started while ${this.current?.id} was still in flight in a sequential run`);
    this.current = inv;
  }

  /** @param {Invocation} inv */
  release(inv) {
    if (this.current === inv) this.current = null;
  }

  running() {
    return this.current;
  }

  /** One invocation at a time: no interleaving to decide (after_work.mjs runs an object's work to rest). */
  get concurrent() {
    return false;
  }

  /** @param {unknown} _work */
  track(_work) {}

  /** @template T @param {Invocation} _inv @param {() => T} fn @returns {T} */
  runFresh(_inv, fn) {
    return fn();
  }

  /**
   * A Durable Object call's code: the running invocation is the one in flight already, and
   * nothing waits for a turn to hand over.
   * @template T @param {Invocation} _inv @param {() => T} fn
   * @returns {{result: T, handOver: (to: Invocation, object: string, keep: boolean) => void}}
   */
  hostCall(_inv, fn) {
    return { result: fn(), handOver: () => {} };
  }

  /**
   * A callee's invocation hosted by a call of `caller`'s (bindings/callee.mjs): it is the one
   * running from now until `leave` puts the caller back, which waits at the call meanwhile; its
   * changes wake the caller's wait, so a callee at work is no hung effect of the caller's.
   * @param {Invocation} caller @param {Invocation} child
   * @returns {{enter: <T>(fn: () => T) => T, leave: () => void}}
   */
  host(caller, child) {
    assert(this.current === caller, () => `${caller.id} hosts ${child.id} while ${this.current?.id} is in flight`);
    this.current = child;
    child.onChange = () => caller.bump();
    return {
      enter: (fn) => fn(),
      leave: () => {
        this.current = caller;
      },
    };
  }

  /** @param {Invocation} _inv @param {string} _target @param {string} _op @returns {null} */
  park(_inv, _target, _op) {
    return null;
  }

  /** No effect parks in a sequential run. */
  unparked() {}

  /** @param {string} _what */
  noteMore(_what) {}

  changed() {}

  /** @param {import("../globals.mjs").VirtualGlobals} _globals */
  watch(_globals) {}

  /** @param {number} _due @param {() => void} _fire @returns {null} */
  alarm(_due, _fire) {
    return null;
  }

  /**
   * @param {Invocation} inv @param {Promise<unknown>} promise
   * @returns {Promise<Outcome>}
   */
  async settle(inv, promise) {
    const run = this.run;
    /** @type {Outcome | null} */
    let settled = null;
    promise.then(
      (value) => { settled = { kind: "returned", value }; inv.bump(); },
      (error) => { settled = { kind: "threw", error }; inv.bump(); },
    );
    let idle = 0;
    for (let step = 0; step < MAX_STEPS; step++) {
      if (inv.crashed) return { kind: "crashed" };
      if (run.stopped) return { kind: "unsupported" };
      if (settled) return settled;
      if (inv.inflight > 0) {
        if (await waitForChange(run, inv.changed(), () => inv.bump(), () => inv.inflight > 0)) {
          run.markUnsupported("effect_hung", `an effect (or Web Crypto call) of ${inv.id} did not finish within the budget of ${run.effectHangMs} ms`);
          return { kind: "unsupported" };
        }
        idle = 0;
        continue;
      }
      const version = inv.version;
      await realTurn(inv);
      if (inv.version !== version || settled) { idle = 0; continue; }
      if (run.globals.fireNext(inv)) { idle = 0; continue; }
      if (run.stopped) return { kind: "unsupported" };
      if (++idle >= IDLE_TURNS) {
        run.markUnsupported("unseen_wait", `invocation ${inv.id} waits on something Eutaxy cannot see (no effect in flight, no timer set)`);
        return { kind: "unsupported" };
      }
    }
    run.markUnsupported("step_limit", `invocation ${inv.id} took more than ${MAX_STEPS} steps`);
    return { kind: "unsupported" };
  }

  /**
   * `settle`, answering the moment the handler's promise settles, even in the middle of an
   * idle event-loop turn: real I/O the handler left running (its waitUntil work) must not
   * move between the handler returning and the drive's points after it. settle's own loop
   * then ends at its next step (it sees the promise settled).
   * @param {Invocation} inv @param {Promise<unknown>} promise
   * @returns {Promise<Outcome>}
   */
  settleAtReturn(inv, promise) {
    const run = this.run;
    /** @type {Promise<Outcome>} */
    const returned = promise.then(
      (value) => (inv.crashed ? { kind: "crashed" } : run.stopped ? { kind: "unsupported" } : { kind: "returned", value }),
      (error) => (inv.crashed ? { kind: "crashed" } : run.stopped ? { kind: "unsupported" } : { kind: "threw", error }),
    );
    return Promise.race([this.settle(inv, promise), returned]);
  }
}
