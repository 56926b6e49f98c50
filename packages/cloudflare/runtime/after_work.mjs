// @ts-check
/**
 * Work after the answer: what a Durable Object goes on doing once a call has answered (a
 * promise it left running, a timer it set, work it handed to `ctx.waitUntil`), as workerd
 * keeps an object alive while anything of its is pending.
 *
 * Each instance of an object has one `ObjectWork` per run (keyed by its `ctx`, so nothing is
 * named on the user's object): the invocation `DO:<binding>/<object>/after` (the object's
 * n-th instance in the run, after a crash reset it: `/after#n`), which owns
 *
 * - the virtual timers the object's code sets (while a call of it is in progress, or while
 *   its own work runs), so a timer outlives the call that set it and the caller's end;
 * - the effects the object's code opens while no call of it is in progress (its env's
 *   binding calls then count to this invocation, objects.mjs), which take faults by their
 *   position in it; a crash at one resets the object (`ctx.abort()`), not the caller;
 * - the promises of `ctx.waitUntil` and of async timer callbacks, and the object's storage
 *   operations in flight (not effects, but real work the object waits on).
 *
 * A sequential run delivers the work as an event of the Durable Object record's own
 * (`afterWorkSource`, before alarms and the drive's next event): the invocation is bound,
 * and the object runs until nothing of it can move (at rest).
 *
 * A concurrent run (the turn scheduler) makes the work a participant like any other
 * invocation: the moment anything of it is pending the scheduler starts it, with no decision
 * (the source is `auto`: the work is already running, the start runs no code), and its
 * effects are turns named `DO:<binding>/<object>` (as a call's effects inside the object),
 * offered while it is in flight, its timers timer turns; the scheduler ends it when, with
 * everything quiet, nothing of it is pending (`settle`). The code an object runs after a
 * call's answer runs as the work's (the call's async context is handed over to the work's
 * invocation at the answer, scheduler `hostCall`), and an effect the call opened, did not
 * await and still waits for its turn at the answer is handed over to the work too (its
 * position is then the work's). Its timers fire from inside the object as in a sequential run,
 * but only when the scheduler's timer turn asks (`requestFire`): the poller decides nothing. Timers are fired from inside
 * the object by a poller armed there (real zero timers; workerd settles an object's promises
 * only in the object's own context, and a promise made outside it is never woken from it),
 * when the work has been quiet for IDLE_TURNS turns; the drive's side polls the work's flags.
 * The same poller wakes a call in progress that awaits a timer of its own (the caller waits on
 * the call, so it never fires the object's timers).
 *
 * Work that never settles (a heartbeat) fires at most `bounds.afterWorkTimerLimit` timers,
 * counted from the last time it was at rest; the next one is a cut (`afterWorkTimerLimit`,
 * where `DO:<binding>/<object>`), and the work's timers are dropped.
 *
 * What it cannot see: a promise left running is seen only through its effects, timers and
 * storage operations; in a sequential run a timer such a promise sets while its caller is still
 * running counts to the caller (the timer global cannot tell whose code calls it); in a
 * concurrent run a timer callback the work's poller fires runs as the work's code, even one a
 * call still in progress set (its own continuation after the timer is the call's).
 */

import { active } from "./active.mjs";
import { assert } from "./assert.mjs";
import { objectAlarm } from "./bindings/durable_object.mjs";
import { Invocation } from "./effects.mjs";
import { progress } from "./progress.mjs";
import { originals, realTimer, realTurn } from "./patch.mjs";
import { IDLE_TURNS, MAX_STEPS } from "./settle.mjs";

/** The cut's bound (eutaxy.core.cuts.AFTER_WORK_TIMER_LIMIT). */
export const AFTER_WORK_TIMER_LIMIT = "afterWorkTimerLimit";

/** One object instance's work after its answers, in one run. */
export class ObjectWork {
  /**
   * @param {import("./run.mjs").Run} run @param {string} binding @param {string} object
   * @param {number} instance the instance's number in the run (1 for the first)
   * @param {() => void} abort resets the object (ctx.abort(), called inside it)
   */
  constructor(run, binding, object, instance, abort) {
    this.run = run;
    this.where = `DO:${binding}/${object}`;
    const id = `${this.where}/after${instance > 1 ? `#${instance}` : ""}`;
    /** The work's invocation; its one host is the object, so a crash in it resets the object. */
    this.inv = new Invocation(id);
    this.inv.hosts.push({ reset: () => this.reset(), work: this });
    this.abort = abort;
    /** @type {Invocation[]} calls of the object in progress (innermost last), each holding it as a host */
    this.calls = [];
    /** Promises of ctx.waitUntil and async timer callbacks not yet settled (since the last cut). */
    this.waits = 0;
    /** How many times afterWorkTimerLimit cut the work: a cut leaves what it waited for undone. */
    this.cuts = 0;
    /** Storage operations of the object in flight. */
    this.storage = 0;
    /** Effects the object's code opened during a call of it and still in flight (the caller's, then handed over). */
    this.issued = 0;
    /** Timers fired since the work was last at rest. */
    this.firings = 0;
    /** True while the record's source has the work's invocation bound (its turn). */
    this.turn = false;
    /** True once the poller found the work at rest in its turn. */
    this.resting = false;
    /** True once the instance is gone (a crash reset it): nothing of it runs any more. */
    this.ended = false;
    /** True while a poller runs inside the object. */
    this.polling = false;
    /** Bumped on every change the poller and the source watch. */
    this.version = 0;
    /** `blockConcurrencyWhile` callbacks of the instance still running: its input gate is held. */
    this.blocking = 0;
    /** True in a concurrent run (the turn scheduler decides when the work's timers fire). */
    this.concurrent = run.scheduler.concurrent === true;
    /** True while a timer turn asked the poller to fire the work's earliest timer (concurrent runs). */
    this.fireRequested = false;
    /** @type {(() => void)[]} waits for the next change (the concurrent delivery's) */
    this.waiters = [];
    /**
     * Continuations of the work's code about to run inside the object (after one of its effects
     * or a timer it fired): workerd runs them in the object's own context, a real turn or more
     * after the effect's end, so the turn scheduler waits for them (`resumed`).
     */
    this.resuming = 0;
    run.scheduler.track(this);
  }

  /** True while the object holds its input gate (`blockConcurrencyWhile`): no other call enters, its I/O is no turn. */
  gateHeld() {
    return this.blocking > 0;
  }

  get id() {
    return this.inv.id;
  }

  /** Anything of the work left to run: its timers, effects, waits or storage operations. */
  pending() {
    if (this.ended || this.inv.dead) return false;
    return this.inv.inflight > 0 || this.inv.parked > 0 || this.issued > 0 || this.resuming > 0 || this.waits > 0 || this.storage > 0 || this.run.globals.hasTimers(this);
  }

  changed() {
    this.version++;
    this.resting = false;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves at the next change. @returns {Promise<void>} */
  nextChange() {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * True while real work of the instance runs that the turn scheduler must wait for before
   * its next decision: a timer it asked to fire, or effect I/O in flight.
   */
  busy() {
    if (this.ended) return false;
    return this.fireRequested || this.resuming > 0 || this.issued > 0 || this.inv.inflight > this.inv.parked;
  }

  /**
   * The work's code goes on inside the object now (an effect of its ended, a timer of its
   * fired): in a concurrent run it counts as busy until a real turn taken inside the object
   * has passed, so its continuation has run (to its next effect's park, or its end) before
   * the scheduler decides again. Call inside the object.
   */
  resumed() {
    if (!this.concurrent || this.ended) return;
    this.resuming++;
    realTimer(0, () => {
      this.resuming--;
      this.changed();
      this.run.scheduler.changed();
    });
  }

  /** True while the scheduler offers the work's timers as turns: its delivery is in flight (concurrent runs). */
  live() {
    return this.turn && !this.ended;
  }

  /** A timer turn picked the work's earliest timer: the poller, inside the object, fires it. */
  requestFire() {
    this.fireRequested = true;
    this.changed();
  }

  /** A crash in the work (or in a call of the object) reset the object: the instance's work ends. */
  reset() {
    this.end();
    this.abort();
  }

  end() {
    if (this.ended) return;
    this.ended = true;
    this.inv.dead = true;
    this.fireRequested = false;
    this.run.globals.dropTimers(this);
    this.changed();
    this.inv.bump();
  }

  /** An effect the object's code opened during a call starts (1) or ends (-1). @param {number} change */
  issue(change) {
    this.issued += change;
    assert(this.issued >= 0, () => `${this.id} counts ${this.issued} effects issued in calls`);
    this.changed();
  }

  /** @param {unknown} value a promise the object waits for (ctx.waitUntil, an async timer callback) */
  wait(value) {
    if (!value || typeof (/** @type {any} */ (value).then) !== "function") return;
    this.waits++;
    this.changed();
    this.poll();
    const { cuts } = this;
    const done = () => {
      if (this.cuts !== cuts) return;
      this.waits--;
      this.changed();
    };
    Promise.resolve(value).then(done, done);
  }

  /** @template T @param {Promise<T>} promise a storage operation of the object @returns {Promise<T>} */
  storageOperation(promise) {
    if (!(promise instanceof Promise)) return promise;
    this.storage++;
    this.changed();
    this.poll();
    const done = () => { this.storage--; this.changed(); };
    promise.then(done, done);
    return promise;
  }

  /**
   * Arm the poller, if none runs: call only from the object's own code (a call entering it,
   * a timer or effect it makes), so the poller's timers are the object's.
   */
  poll() {
    if (this.polling || this.ended) return;
    this.polling = true;
    let idle = 0;
    let seen = -1;
    const tick = () => {
      const run = this.run;
      if (run.stopped || active.run !== run || this.ended) {
        this.polling = false;
        return;
      }
      const host = this.calls.at(-1) ?? null;
      if (this.concurrent && this.fireRequested) {
        // A timer turn asked for the work's earliest timer: its callback is the work's code.
        this.fireRequested = false;
        run.scheduler.runFresh(this.inv, () => this.fire());
        this.resumed();
        run.scheduler.changed();
      } else if (host) {
        // A call in progress: its caller waits on it (one effect in flight); when nothing else
        // of the call moves, the object's own timer (one it awaits) fires.
        const version = host.version + this.version;
        idle = host.inflight === 1 && host.parked === 0 && this.storage === 0 && version === seen ? idle + 1 : 0;
        seen = version;
        if (idle >= IDLE_TURNS && run.globals.hasTimers(this)) {
          idle = 0;
          // (In a concurrent run the call counts as busy meanwhile: no turn is decided.)
          if (this.concurrent) {
            run.scheduler.runFresh(this.inv, () => this.fire());
            this.resumed();
            run.scheduler.changed();
          } else this.fire();
        }
      } else if (this.concurrent) {
        // The scheduler decides when the work's timers fire (requestFire) and when it is at rest.
        if (!this.turn && !this.pending()) {
          this.polling = false;
          return;
        }
      } else if (this.turn) {
        const version = this.inv.version + this.version;
        idle = this.inv.inflight === 0 && this.issued === 0 && this.storage === 0 && version === seen ? idle + 1 : 0;
        seen = version;
        if (idle >= IDLE_TURNS) {
          idle = 0;
          // A wait with nothing else moving is real work (storage I/O the object awaits, say):
          // the source's hang bound ends the run if it never settles.
          if (run.globals.hasTimers(this)) this.fire();
          else if (this.waits === 0) {
            this.resting = true;
            this.firings = 0;
          }
        }
      } else if (!this.pending()) {
        // No call in progress, nothing pending and not its turn: the object is idle.
        this.polling = false;
        return;
      }
      realTimer(0, tick);
    };
    realTimer(0, tick);
  }

  /** Fire the work's earliest timer, or past the run's afterWorkTimerLimit cut the work. */
  fire() {
    const run = this.run;
    const limit = run.scenario.bounds?.afterWorkTimerLimit;
    assert(Number.isInteger(limit) && limit >= 0, () => `the plan's bounds carry afterWorkTimerLimit ${JSON.stringify(limit)}, not a non-negative integer (define_scenario writes it)`);
    if (this.firings >= limit) {
      run.recordCut({ bound: AFTER_WORK_TIMER_LIMIT, where: this.where, invocation: this.id, left: [this.id.slice(this.where.length + 1)], limit });
      // What the work waited for (a promise awaiting one of the dropped timers) is left undone.
      run.globals.dropTimers(this);
      this.cuts++;
      this.waits = 0;
      this.changed();
      return;
    }
    this.firings++;
    run.globals.fireNext(this);
    this.changed();
  }
}

/** Each run's work, by the object instance's ctx. @type {WeakMap<import("./run.mjs").Run, {byContext: WeakMap<object, ObjectWork>, all: ObjectWork[], instances: Map<string, number>}>} */
const runWork = new WeakMap();

/** @param {import("./run.mjs").Run} run */
function worksOf(run) {
  let works = runWork.get(run);
  if (!works) runWork.set(run, (works = { byContext: new WeakMap(), all: [], instances: new Map() }));
  return works;
}

/**
 * The work of the object instance whose `ctx` this is, in the run (made at its first use).
 * @param {import("./run.mjs").Run} run @param {any} ctx @param {string} className @param {() => void} abort
 */
export function workOf(run, ctx, className, abort) {
  const works = worksOf(run);
  let work = works.byContext.get(ctx);
  if (!work) {
    const { binding, object } = objectAlarm(run, className, ctx.id);
    const label = `${binding}/${object}`;
    const instance = (works.instances.get(label) ?? 0) + 1;
    works.instances.set(label, instance);
    work = new ObjectWork(run, binding, object, instance, abort);
    works.byContext.set(ctx, work);
    works.all.push(work);
  }
  return work;
}

/**
 * Whose a timer set now is: the object's work when the code running is an object's (a call
 * of it in progress, innermost, or its own work in its turn), else the invocation running.
 * Arms the work's poller (the object's code is the caller).
 * @param {import("./run.mjs").Run} run @returns {unknown}
 */
export function timerOwner(run) {
  const inv = run.current;
  const work = inv?.hosts.at(-1)?.work ?? null;
  if (!work) return inv;
  work.changed();
  work.poll();
  return work;
}

/**
 * The invocation an object's effect belongs to: the call of it in progress (innermost), or
 * its own work after its answers.
 * @param {import("./run.mjs").Run} run @param {ObjectWork} work
 */
export function effectInvocation(run, work) {
  const inv = run.current;
  if (inv && inv.hosts.at(-1)?.work === work) return inv;
  work.changed();
  work.poll();
  return work.inv;
}

/**
 * The work after the answer as a scheduler source (bindings/durable_object.mjs adds it to
 * the record's events): the first object with work pending, in the order their work began,
 * runs it as its invocation `DO:<binding>/<object>/after`.
 *
 * A sequential run delivers it as an event and runs it to rest: the drive's side only polls
 * the work's flags; the object's poller moves it. A concurrent run starts it with no decision
 * (`auto`) the moment anything of it is pending, and the scheduler ends it once, with
 * everything quiet, nothing of it is pending any more (`settle`): meanwhile its effects and
 * timers are turns like any other invocation's.
 * @param {import("./run.mjs").Run} run
 * @returns {import("./scheduler/scheduler.mjs").Source}
 */
export function afterWorkSource(run) {
  const all = () => runWork.get(run)?.all ?? [];
  const next = () => all().find((work) => !work.turn && work.pending()) ?? null;
  /** Works whose concurrent delivery the scheduler ended (at rest, or the instance gone). @type {WeakSet<ObjectWork>} */
  const done = new WeakSet();
  return {
    auto: true,
    next: () => {
      const work = next();
      return run.stopped ? null : work?.id ?? null;
    },
    settle: () => {
      let ended = false;
      for (const work of all()) {
        if (!work.turn || done.has(work) || (!work.ended && work.pending())) continue;
        done.add(work);
        work.changed();
        ended = true;
      }
      return ended;
    },
    start: async () => {
      const work = /** @type {ObjectWork} */ (next());
      const inv = work.inv;
      progress(inv.id, "start", null);
      run.scheduler.bind(inv);
      work.turn = true;
      work.resting = false;
      if (work.concurrent) {
        done.delete(work);
        // The turns move the work; the scheduler's settle ends its delivery.
        for (let step = 0; step < MAX_STEPS && !done.has(work) && !work.ended && !run.stopped; step++) {
          await Promise.race([work.nextChange(), inv.changed()]);
        }
        work.firings = 0;
      } else {
        let seen = -1;
        let quietSince = originals.dateNow();
        let idle = 0;
        for (let step = 0; step < MAX_STEPS && !work.resting && !work.ended && !run.stopped; step++) {
          await realTurn();
          const version = work.version + inv.version;
          if (version !== seen) {
            seen = version;
            quietSince = originals.dateNow();
            idle = 0;
            continue;
          }
          if (!work.polling && ++idle >= IDLE_TURNS) {
            // Nothing of the object runs to move the work: it waits on what Eutaxy cannot see.
            run.markUnsupported("unseen_wait", `the work ${inv.id} left after its answer waits on something Eutaxy cannot see`);
          } else if (originals.dateNow() - quietSince > run.effectHangMs) {
            run.markUnsupported("effect_hung", `the work ${inv.id} left after its answer did not move within the budget of ${run.effectHangMs} ms`);
          }
        }
      }
      work.turn = false;
      run.scheduler.release(inv);
      return run.stopped;
    },
  };
}

/**
 * A timer fired (globals.mjs): an async callback of an object's timer is work the object
 * waits for.
 * @param {unknown} owner @param {unknown} result what the callback returned
 */
export function timerFired(owner, result) {
  if (owner instanceof ObjectWork) owner.wait(result);
}
