// @ts-check
/**
 * Effect points: the one wrapper every binding call goes through.
 *
 * A point records `call`, asks the plan follower for a fault, and then:
 * - none: performs the effect, records `result` (a real error is recorded as a result with
 *   `{error}` and rethrown), returns the value;
 * - crash_before: records `fault`, kills the invocation;
 * - error: records `fault`, throws an Error to the caller without performing;
 * - crash_after: performs, records `result` then `fault`, kills the invocation;
 * - ambiguous: performs, records `result` then `fault`, throws an Error to the caller.
 * Every effect of one point carries the point's virtual time; the clock advances 1 ms
 * when the point is done, whatever its outcome.
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

export const WRITE_FAULTS = Object.freeze(["crash_before", "crash_after", "ambiguous", "error"]);
export const READ_FAULTS = Object.freeze(["crash_before", "crash_after", "error"]);
export const DECISION_FAULTS = Object.freeze(["crash_before", "crash_after"]);

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
    /** True once a crash fault hit it; its code must never continue. */
    this.crashed = false;
    /** True once it crashed or its drive finished with it: every later effect is refused. */
    this.dead = false;
    /** Bumped on every change the drive waits for (effect started or done, crash, end). */
    this.version = 0;
    /** @type {(() => void)[]} */
    this.waiters = [];
    /** @type {(() => void) | null} the turn scheduler's listener (concurrent runs only) */
    this.onChange = null;
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
    this.bump();
  }
}

/**
 * @typedef {object} PointSpec
 * @property {string} target
 * @property {string} op
 * @property {unknown} args
 * @property {readonly string[]} ladder
 * @property {(fault: string) => Error} injectedError the Error the caller sees for `error` and `ambiguous`
 */

/**
 * An asynchronous effect point.
 * @template T
 * @param {import("./run.mjs").Run} run @param {Invocation} inv
 * @param {PointSpec & {perform: () => Promise<T>, summarize: (value: T) => unknown}} spec
 * @returns {Promise<T>}
 */
export async function asyncPoint(run, inv, spec) {
  if (inv.dead || run.stopped) return never();
  if (run.turns) {
    // A concurrent run: the effect is a turn; the invocation parks until a turn picks it.
    await run.turns.park(inv, spec.target, spec.op);
    if (inv.dead || run.stopped) return never();
  }
  const ordinal = inv.nextOrdinal++;
  const time = run.clock.now;
  const record = (/** @type {string} */ kind, /** @type {unknown} */ payload) => run.record(spec.target, spec.op, kind, payload, inv.id, ordinal, time);
  record("call", { args: spec.args });
  const fault = run.follower.faultAt(inv.id, ordinal, spec.target, spec.ladder);
  if (fault === "crash_before" || fault === "error") {
    record("fault", { args: spec.args, fault });
    run.clock.advance(1);
    if (fault === "error") throw spec.injectedError(fault);
    inv.crash();
    return never();
  }
  inv.inflight++;
  inv.bump();
  /** @type {{ok: true, value: T} | {ok: false, error: unknown}} */
  let outcome;
  try {
    outcome = { ok: true, value: await run.serialize(spec.perform) };
  } catch (error) {
    outcome = { ok: false, error };
  }
  record("result", { args: spec.args, result: outcome.ok ? spec.summarize(outcome.value) : { error: describeError(outcome.error) } });
  if (fault !== "none") record("fault", { args: spec.args, fault });
  run.clock.advance(1);
  inv.inflight--;
  if (fault === "crash_after") inv.crash();
  else inv.bump();
  if (fault === "crash_after" || inv.dead || run.stopped) return never();
  if (fault === "ambiguous") throw spec.injectedError(fault);
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

/**
 * A synchronous effect point (a decision such as an ack): no I/O, so no ambiguity.
 * @template T
 * @param {import("./run.mjs").Run} run @param {Invocation} inv
 * @param {Omit<PointSpec, "injectedError"> & {perform: () => T, summarize: (value: T) => unknown}} spec
 * @returns {T}
 */
export function syncPoint(run, inv, spec) {
  const where = `${spec.target} ${spec.op}`;
  if (inv.dead || run.stopped) throw new CrashSignal(inv.id, where);
  // Not a turn: in a concurrent run it is part of the turn that reached it (which did more).
  run.turns?.noteMore("sync_effect");
  const ordinal = inv.nextOrdinal++;
  const time = run.clock.now;
  const record = (/** @type {string} */ kind, /** @type {unknown} */ payload) => run.record(spec.target, spec.op, kind, payload, inv.id, ordinal, time);
  record("call", { args: spec.args });
  const fault = run.follower.faultAt(inv.id, ordinal, spec.target, spec.ladder);
  if (fault === "crash_before") {
    record("fault", { args: spec.args, fault });
    run.clock.advance(1);
    inv.crash();
    throw new CrashSignal(inv.id, where);
  }
  const value = spec.perform();
  record("result", { args: spec.args, result: spec.summarize(value) });
  run.clock.advance(1);
  if (fault === "crash_after") {
    record("fault", { args: spec.args, fault });
    inv.crash();
    throw new CrashSignal(inv.id, where);
  }
  if (fault !== "none") throw new Error(`eutaxy: fault ${fault} is not defined at a synchronous point`);
  return value;
}

/**
 * An effect the platform makes on the invocation's behalf (an implicit ack, a dead letter):
 * it takes the invocation's next ordinal but no fault decision, and it always commits.
 * @param {import("./run.mjs").Run} run @param {Invocation} inv
 * @param {{target: string, op: string, args: unknown, result: unknown}} spec
 */
export function platformEffect(run, inv, spec) {
  const ordinal = inv.nextOrdinal++;
  const time = run.clock.now;
  run.record(spec.target, spec.op, "call", { args: spec.args }, inv.id, ordinal, time);
  run.record(spec.target, spec.op, "result", { args: spec.args, result: spec.result }, inv.id, ordinal, time);
  run.clock.advance(1);
}

/** @param {unknown} error @returns {{name: string, message: string}} */
export function describeError(error) {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: "Error", message: String(error) };
}
