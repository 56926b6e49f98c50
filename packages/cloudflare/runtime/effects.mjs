// @ts-check
/**
 * The effect point (`effectPoint`): the one primitive every binding call, the http response,
 * the background point and the platform's own effects go through (record the call, ask the
 * plan follower, perform, record the result, inject the fault).
 *
 * How a crash kills an invocation. An asynchronous point that crashes returns a promise
 * that never settles: the handler's continuation after its `await` never runs, no catch
 * or finally of the user's sees anything, as when the machine dies. A synchronous point
 * (a queue ack) cannot park its caller, so it throws a CrashSignal. In both cases the
 * invocation is marked dead first: the drive stops waiting for it at once, and any later
 * effect through it (a catch that carried on, a second strand of a Promise.all) is refused:
 * nothing is recorded or performed, async calls never settle, sync calls throw again.
 * The never-settling promises are fresh per call, so they and the continuations hanging on
 * them are garbage once the drive lets go of the invocation.
 */

import { assert } from "./assert.mjs";
import { callSite } from "./call_site.mjs";
import { environmentLimit } from "./errors.mjs";
import { errorFields } from "./values.mjs";

/**
 * The platform's ladder named `name` (`write`, `read`, `decision`, `response`,
 * `responseWithDeadline`, `background`), as the load message carries them: Python's
 * eutaxy.core.faults owns them (core's vectors/ladders.json holds the rows both suites read),
 * and the runtime writes none down. A name the message lacks is Eutaxy's own bug, never a
 * point without faults.
 * @param {import("./run.mjs").Run} run @param {string} name @returns {readonly string[]}
 */
export function ladderNamed(run, name) {
  const ladder = run.config.ladders?.[name];
  if (!Array.isArray(ladder)) throw new Error(`the load message gives no ladder ${name} (${JSON.stringify(Object.keys(run.config.ladders ?? {}))})`);
  return ladder;
}

/** Thrown into user code by a synchronous point that crashed its invocation. */
export class CrashSignal extends Error {
  /** @param {string} invocation @param {string} where */
  constructor(invocation, where) {
    super(`eutaxy: invocation ${invocation} crashed at ${where}; nothing after this runs`);
    this.name = "EutaxyCrash";
  }
}

/** Thrown into user code that touched something a run cannot control. */
export class UnsupportedSignal extends Error {
  /** @param {string} detail */
  constructor(detail) {
    super(`eutaxy: unsupported: ${detail}`);
    this.name = "EutaxyUnsupported";
  }
}

/** A promise that never settles, fresh for each caller. @returns {Promise<never>} */
export function never() {
  return new Promise(() => {});
}

/** One invocation: one delivery attempt of one event (`<event id>#<attempt>`). */
export class Invocation {
  /** @param {string} id */
  constructor(id) {
    this.id = id;
    /** The next effect point's ordinal within this invocation. */
    this.nextOrdinal = 0;
    /** Effects of this invocation whose real I/O is running. */
    this.inflight = 0;
    /**
     * Effects of this invocation parked for their turn (concurrent runs): one parked inside a
     * Durable Object call leaves that call in flight (`inflight`) while nothing of it runs.
     */
    this.parked = 0;
    /** True once a crash fault hit it; its code must never continue. */
    this.crashed = false;
    /**
     * The Worker's own `process.exit` that crashed it, as a run reports an error (run.mjs `exitInvocation`).
     * @type {{name: string, message: string, stack?: string} | null}
     */
    this.exited = null;
    /** True once it was stopped for running past the Worker's CPU limit (as a crash stops it; outcome `timed_out`). */
    this.timedOut = false;
    /** True once it crashed or its drive finished with it: every later effect is refused. */
    this.dead = false;
    /** Bumped on every change the drive waits for (effect started or done, crash, end). */
    this.version = 0;
    /** @type {(() => void)[]} */
    this.waiters = [];
    /** @type {(() => void) | null} the turn scheduler's listener (concurrent runs only) */
    this.onChange = null;
    /**
     * The objects whose code runs this invocation's work now (a Durable Object call in
     * progress, innermost last; the object itself for its work after the answer,
     * after_work.mjs), each with the function that resets it: a crash while one is running
     * resets it where the crash happens (bindings/durable_object.mjs), and with its work.
     * @type {{reset: () => void, work: import("./after_work.mjs").ObjectWork}[]}
     */
    this.hosts = [];
  }

  /**
   * The invocation itself. The env a Durable Object's code holds stands for whichever
   * invocation the object's code belongs to at the moment (objects.mjs), and answers that
   * one here: an effect point takes it once, when it opens.
   * @returns {Invocation}
   */
  get now() {
    return this;
  }

  bump() {
    this.version++;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
    this.onChange?.();
  }

  /** Resolves at the next bump. @returns {Promise<void>} */
  changed() {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  crash() {
    this.crashed = true;
    this.dead = true;
    const host = this.hosts.at(-1);
    this.hosts = [];
    host?.reset();
    this.bump();
  }
}

/**
 * What one effect point is.
 *
 * `kind` says who makes the effect and how it runs:
 * - `io`: the Worker's call with real I/O (a D1 statement, an outbound fetch). It returns a
 *   promise; in a concurrent run it parks until a turn picks it; its I/O runs serialized and
 *   counts as in flight; `error` and `ambiguous` reach the caller as `injectedError`, a crash
 *   as a promise that never settles.
 * - `decision`: the Worker's synchronous call with no I/O (a queue ack or retry). A crash
 *   throws a CrashSignal into the caller; in a concurrent run it is part of the turn that
 *   reached it, which so did more than its effect.
 * - `platform`: the drive's own point (the http response, the background point, an implicit
 *   ack, a dead letter, the caller giving up). It returns the fault to the drive, which
 *   decides what follows; with an empty ladder it is an effect the platform always commits.
 * @typedef {object} PointSpec
 * @property {"io" | "decision" | "platform"} kind
 * @property {string} target
 * @property {string} op
 * @property {unknown} args
 * @property {readonly string[]} ladder the faults the point allows, in ladder order
 * @property {() => unknown} perform the effect itself (a promise for `io`)
 * @property {(value: any) => unknown} summarize the recorded result of what `perform` gave
 * @property {(fault: string) => Error} [injectedError] the Error the caller sees for `error` and `ambiguous` (`io` only)
 * @property {boolean} [hosts] the effect runs code that makes effects of its own (a Durable
 *   Object call): its I/O is not serialized behind other I/O, where it would wait for itself
 * @property {string} [site] a `platform` point's call site (call_site.mjs) when a call of the
 *   Worker's made it, taken by the binding before its first await (a Workflow step's step.do)
 */

/** The ladder of a platform effect that always commits (an implicit ack, a dead letter, giving up). */
export const NO_FAULTS = Object.freeze([]);

/** Faults that strike before the effect is performed; all but `error` kill the invocation. */
const BEFORE = new Set(["crash_before", "error", "cut_off"]);

/**
 * The one effect point: every effect the log holds (but D1's end-of-run snapshot and Core
 * decisions, which are not points) is recorded here, and every fault is injected here.
 * It takes the invocation's next ordinal, records `call`, asks the plan follower for the
 * fault, and then, by the fault:
 * - none: performs, records `result` (a real error of an `io` point is recorded as a result
 *   with `{error}` and rethrown), returns;
 * - crash_before, cut_off: records `fault`, kills the invocation;
 * - error: records `fault`; the caller gets `injectedError` without the effect performed;
 * - crash_after: performs, records `result` then `fault`, kills the invocation;
 * - ambiguous: performs, records `result` then `fault`; the caller gets `injectedError`
 *   (an `io` point) or the fault (a `platform` point).
 * Every record of one point carries the point's virtual time; the clock advances 1 ms once
 * the point is done, whatever its outcome. A Worker's point on a dead invocation (crashed,
 * or its drive finished with it) is refused: nothing is recorded or performed.
 * @param {import("./run.mjs").Run} run @param {Invocation} given @param {PointSpec} spec
 * @returns {any} a promise of the value (`io`), the value (`decision`), the fault (`platform`)
 */
export function effectPoint(run, given, spec) {
  const inv = given.now;
  // The Worker's call is on the stack only now: an `io` point may park before it opens.
  if (spec.kind === "io") return ioPoint(run, inv, spec, inv.dead || run.stopped ? undefined : callSite(effectPoint));
  const decision = spec.kind === "decision";
  if (decision) {
    if (inv.dead || run.stopped) throw new CrashSignal(inv.id, `${spec.target} ${spec.op}`);
    run.scheduler.noteMore("sync_effect");
  }
  // A platform point is the drive's or the engine's: its site is the Worker's call that led to it, if any.
  const point = new Point(run, inv, spec, decision ? callSite(effectPoint) : spec.site);
  if (point.strikesBefore()) {
    if (decision) throw new CrashSignal(inv.id, `${spec.target} ${spec.op}`);
    return point.fault;
  }
  const value = spec.perform();
  point.commit(spec.summarize(value));
  // Past the CPU limit right after this point (an earlier try of the run stalled here): stopped as by a crash.
  if (point.fault === "crash_after" || run.stopsForCpu(inv, point.ordinal)) {
    inv.crash();
    if (decision) throw new CrashSignal(inv.id, `${spec.target} ${spec.op}`);
  }
  if (!decision) return point.fault;
  assert(point.fault === "none", () => `fault ${point.fault} was decided at the synchronous point ${spec.target} ${spec.op}, whose ladder cannot hold it`);
  return value;
}

/**
 * The `io` half of effectPoint: the same steps around an awaited perform.
 * @param {import("./run.mjs").Run} run @param {Invocation} given the invocation whose point it is (a parked one may change hands) @param {PointSpec} spec
 * @param {string | undefined} site the Worker's call site (call_site.mjs)
 */
async function ioPoint(run, given, spec, site) {
  let inv = given;
  if (inv.dead || run.stopped) return never();
  // In a concurrent run the effect is a turn: the invocation parks until a turn picks it.
  // Inside a Durable Object (a call of it in progress, `hosts`) too, as the object's input
  // gate is open while it awaits outbound I/O; but not while the object holds its gate
  // (`blockConcurrencyWhile`): then what it does is part of the turn that reached it.
  const host = inv.hosts.at(-1) ?? null;
  if (host?.work.gateHeld()) run.scheduler.noteMore("object_call");
  const parked = host?.work.gateHeld() ? null : run.scheduler.park(inv, spec.target, spec.op, host?.work.where ?? null);
  if (parked) {
    inv.parked++;
    // The turn names whose effect it is now: an effect a Durable Object call opened and left
    // waiting is the object's own work's once the call has answered (after_work.mjs).
    inv = (await parked) ?? inv;
    run.scheduler.unparked();
    inv.parked--;
    if (inv.dead || run.stopped) return never();
  }
  const point = new Point(run, inv, spec, site);
  if (point.strikesBefore()) {
    if (point.fault === "error") throw /** @type {NonNullable<PointSpec["injectedError"]>} */ (spec.injectedError)(point.fault);
    return never();
  }
  inv.inflight++;
  inv.bump();
  // The object whose code opened the point during a call of it (after_work.mjs): once that
  // call has answered, what follows the effect is the object's work, not the caller's.
  const work = inv.hosts.at(-1)?.work ?? null;
  work?.issue(1);
  /** @type {{ok: true, value: unknown} | {ok: false, error: unknown}} */
  let outcome;
  try {
    const perform = /** @type {() => Promise<unknown>} */ (spec.perform);
    outcome = { ok: true, value: await (spec.hosts ? perform() : run.serialize(perform)) };
  } catch (error) {
    // The machine's storage is full: never the Worker's D1 error, the check ends with it.
    const limit = environmentLimit(error);
    if (limit) {
      run.fail(limit);
      return never();
    }
    outcome = { ok: false, error };
  }
  point.commit(outcome.ok ? spec.summarize(outcome.value) : { error: errorFields(outcome.error) });
  inv.inflight--;
  work?.issue(-1);
  assert(inv.inflight >= 0, () => `invocation ${inv.id} has ${inv.inflight} effects in flight`);
  const stopped = point.fault === "crash_after" || run.stopsForCpu(inv, point.ordinal);
  // What follows is the object's work (its own effect, or one issued before the answer):
  // the turn scheduler waits for it to run on inside the object.
  if (work && (work.inv === inv || !work.calls.includes(inv))) work.resumed();
  if (work && work.inv !== inv && !work.calls.includes(inv)) {
    // Issued by the object before its answer and not awaited: the object's from the answer
    // on, so the caller's end does not stop it and a crash here resets the object alone.
    inv.bump();
    if (stopped) work.reset();
    if (stopped || work.ended || run.stopped) return never();
  } else {
    if (stopped) inv.crash();
    else inv.bump();
    if (stopped || inv.dead || run.stopped) return never();
  }
  if (point.fault === "ambiguous") throw /** @type {NonNullable<PointSpec["injectedError"]>} */ (spec.injectedError)(point.fault);
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

/** One point's records: its ordinal, its time, its call site and its fault, fixed when it opens. */
class Point {
  /**
   * @param {import("./run.mjs").Run} run @param {Invocation} inv @param {PointSpec} spec
   * @param {string | undefined} site the bundle positions of the Worker's call (call_site.mjs), on every record of the point
   */
  constructor(run, inv, spec, site) {
    assert(spec.kind === "platform" || !inv.dead, () => `the dead invocation ${inv.id} reached ${spec.target} ${spec.op}`);
    this.run = run;
    this.inv = inv;
    this.spec = spec;
    this.site = site;
    this.ordinal = inv.nextOrdinal++;
    this.time = run.clock.now;
    this.record("call", { args: spec.args });
    /** "none" or the fault the plan follower decided */
    this.fault = run.follower.faultAt(inv.id, this.ordinal, spec.target, spec.ladder);
    assert(this.fault === "none" || spec.ladder.includes(this.fault), () => `the follower decided ${this.fault} at ${spec.target} ${spec.op}, outside its ladder ${spec.ladder.join(", ")}`);
  }

  /** @param {string} kind @param {unknown} payload */
  record(kind, payload) {
    this.run.record(this.spec.target, this.spec.op, kind, payload, this.inv.id, this.ordinal, this.time, this.site);
  }

  /** If the fault strikes before the effect: record it, end the point, kill unless `error`. */
  strikesBefore() {
    if (!BEFORE.has(this.fault)) return false;
    this.record("fault", { args: this.spec.args, fault: this.fault });
    this.run.clock.advance(1);
    if (this.fault !== "error") this.inv.crash();
    return true;
  }

  /** The effect was performed: record its result, then the fault after it, and end the point. @param {unknown} result */
  commit(result) {
    this.record("result", { args: this.spec.args, result });
    if (this.fault !== "none") this.record("fault", { args: this.spec.args, fault: this.fault });
    this.run.clock.advance(1);
  }
}

