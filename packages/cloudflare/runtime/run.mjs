// @ts-check
/**
 * One run inside the isolate: reset, install the virtual globals, drive the events as
 * invocations, restore the globals, snapshot, answer. The RunResult is the protocol's
 * (docs/contract.md): `{protocol, effects, eligible, decisions, end}`, and `console` when
 * the Worker logged (console.mjs: the lines are kept beside the effect log, never in it).
 *
 * The run's scheduler (scheduler/scheduler.mjs) is picked by `maxConcurrentInvocations`: at 1
 * a run is sequential (scheduler/sequential.mjs: one invocation in flight at a time, fault
 * decisions only); above 1 the turn scheduler (scheduler/turns.mjs) interleaves invocations at
 * their effects and makes a turn decision at every turn. The bindings are the records'
 * (bindings/index.mjs), walked in setup order; no binding kind is named here.
 */

import { active } from "./active.mjs";
import { ConsoleCapture } from "./console.mjs";
import { assert } from "./assert.mjs";
import { clearTurns, originals, realTimer, usedAtLoad } from "./patch.mjs";
import { closeConnections } from "./websocket.mjs";
import { RECORDS, owners, proxyOf, resetBindings, snapshotBindings } from "./bindings/index.mjs";
import { alarmCuts } from "./bindings/durable_object.mjs";
import { ASSETS_BINDING, assetsOf } from "./bindings/assets.mjs";
import { calleeClass } from "./bindings/callee.mjs";
import { timerFired, timerOwner } from "./after_work.mjs";
import { DRIVES } from "./drives.mjs";
import { CrashSignal, Invocation } from "./effects.mjs";
import { UserFacingError, uncaughtError } from "./errors.mjs";
import { VirtualClock, VirtualGlobals } from "./globals.mjs";
import { PlanFollower } from "./plan.mjs";
import { createScheduler } from "./scheduler/scheduler.mjs";
import { progress } from "./progress.mjs";

export const PROTOCOL_VERSION = 1;

/**
 * A run's own wall-clock limit is this many times its effect hang bound (`effectHangMs`),
 * never a share of the exploration's budget, and at least RUN_LIMIT_FLOOR_MS: past it the run
 * ends UNSUPPORTED (`run_time_limit`), as a Worker whose invocations keep making effects
 * forever (a loop awaiting D1) would otherwise run until the host's own guard (four times the
 * bound, at least a minute: eutaxy.cloudflare.platform `_run_timeout_s`) kills it.
 */
export const RUN_LIMIT_FACTOR = 3;
/** The least wall-clock limit of one run, so a loaded machine is not mistaken for an endless run. */
export const RUN_LIMIT_FLOOR_MS = 20_000;

/** The control binding's name; it is never shown to the Worker. */
export const CONFIG_BINDING = "__EUTAXY_CONFIG";
/** The binding the runtime reaches the assets under when the Worker has none (bindings/assets.mjs). */
export { ASSETS_BINDING };

export { UserFacingError };

/**
 * @typedef {{ladders?: Record<string, readonly string[]>, kinds?: Record<string, any>,
 *   traps?: Record<string, string>,
 *   callees?: Record<string, {name: string, entrypoint: string | null, props: object, env: Record<string, string>, classes: Record<string, string>,
 *     errors?: {caller: boolean | null, callee: boolean}}>}} RuntimeConfig
 */

/**
 * @typedef {{bound: string, where: string, invocation: string, left: string[], limit: number,
 *   platformLimit?: number, behind?: string[]}} Cut
 */

/**
 * @typedef {{invocation: string, drive: string, outcome: string, ordinal?: number,
 *   error?: {name: string, message: string, stack?: string}, deadLettered?: number, retriedAll?: boolean, messages?: string[]}} InvocationOutcome
 */

export class Run {
  /**
   * @param {any} plan @param {RuntimeConfig} config @param {Record<string, any>} realEnv @param {any} [userModule]
   * @param {Record<string, any>} [calleeModules] each callee Worker's module namespace, by its binding (bindings/callee.mjs)
   */
  constructor(plan, config, realEnv, userModule = null, calleeModules = {}) {
    this.plan = plan;
    /** The Worker's module namespace, whose handlers the drives call. */
    this.userModule = userModule;
    /** The callee Workers' module namespaces, by the binding their caller reaches them by. */
    this.calleeModules = calleeModules;
    /** The env names of the callees' own bindings and vars (qualified), which the caller's env does not show. */
    this.calleeNames = calleeNames(config);
    /** @type {Map<string, (event: any, env: any, ctx: any) => unknown>} each handler method, looked up once */
    this.handlers = new Map();
    assert(typeof plan.scenario === "object" && plan.scenario !== null, "the plan carries no scenario (core.protocol's RunPlan.to_data writes it)");
    this.scenario = plan.scenario;
    this.config = config;
    this.realEnv = realEnv;
    this.clock = new VirtualClock();
    // The follower refuses a plan missing a field it reads (prefix, policy, maxFaults, maxShortBatches, streams.turns).
    this.follower = new PlanFollower(plan);
    /** @type {object[]} the effect log, in the order effects happened */
    this.effects = [];
    /** @type {InvocationOutcome[]} how each invocation delivered to a handler ended (docs/protocol.md `invocations`) */
    this.invocations = [];
    /** @type {Cut[]} where a bound stopped what the platform would have continued (docs/protocol.md `cuts`) */
    this.cuts = [];
    /** @type {Map<string, number>} each invocation's last point ordinal: they only increase */
    this.lastOrdinals = new Map();
    /** @type {{cause: string, detail: string} | null} */
    this.unsupported = null;
    /** @type {Error | null} an internal invariant that broke (assert.mjs); the run then fails */
    this.failure = null;
    const concurrency = this.scenario.bounds?.maxConcurrentInvocations;
    assert(Number.isInteger(concurrency) && concurrency >= 1, () => `the plan's bounds carry maxConcurrentInvocations ${JSON.stringify(concurrency)}, not an integer of at least 1 (with_bounds writes it)`);
    /** @type {import("./scheduler/scheduler.mjs").Scheduler} */
    this.scheduler = createScheduler(this, concurrency);
    const effectHangMs = this.scenario.bounds?.effectHangMs;
    assert(Number.isInteger(effectHangMs) && effectHangMs > 0, () => `the plan's bounds carry effectHangMs ${JSON.stringify(effectHangMs)}, not a positive integer (with_bounds writes it)`);
    /** Real time one effect's I/O may take before it counts as hung; `budgetMs` is the exploration's. */
    this.effectHangMs = effectHangMs;
    /** Real time the whole run may take (RUN_LIMIT_FACTOR). */
    this.runLimitMs = Math.max(RUN_LIMIT_FACTOR * effectHangMs, RUN_LIMIT_FLOOR_MS);
    /** When the run began, in real milliseconds (workerd's clock moves with I/O, which is when it is read). */
    this.startedAtMs = originals.dateNow.call(originals.Date);
    const globalWords = plan.streams.globals;
    assert(Array.isArray(globalWords), "the plan's streams carry no globals words (core.protocol's RunPlan.to_data writes them)");
    this.globals = new VirtualGlobals(globalWords, this.clock, {
      current: () => timerOwner(this),
      unsupported: (cause, detail) => this.markUnsupported(cause, detail),
      work: (promise) => this.work(promise),
      fired: timerFired,
    });
    /** The Worker's console lines, each under the point its invocation last opened (console.mjs). */
    this.console = new ConsoleCapture({ now: () => this.clock.now, current: () => this.current });
    /** Each env name a binding record owns, with its record and config entry (bindings/index.mjs). */
    this.owners = owners(config);
    /** @type {import("./scheduler/scheduler.mjs").Source[]} the records' own events (alarms, produced messages), delivered beside the drive's */
    this.eventSources = RECORDS.flatMap((record) => (record.events ? [record.events(this)].flat() : []));
    /** Real I/O of effects runs one at a time, in call order, so results log in call order. */
    this.chain = Promise.resolve();
    /**
     * Where an invocation ran past the Worker's CPU limit in an earlier try of this run (the
     * host's watchdog stopped workerd there and reran the plan with `cpuExceeded`): invocation
     * id -> the ordinal of the last point it opened before it stalled, -1 for its start.
     * @type {Map<string, number>}
     */
    this.cpuExceeded = new Map((plan.cpuExceeded ?? []).map((/** @type {{invocation: string, ordinal: number | null}} */ stop) => [stop.invocation, stop.ordinal ?? -1]));
    /** The invocation started last: the drives call its handler right after starting it. @type {import("./effects.mjs").Invocation | null} */
    this.started = null;
  }

  /** The invocation whose code is running (concurrent runs: from its async context). */
  get current() {
    return this.scheduler.running();
  }

  /** True once the run is UNSUPPORTED, or failed: nothing more is driven or performed. */
  get stopped() {
    return this.unsupported !== null || this.failure !== null;
  }

  /**
   * The run cannot go on for a reason outside the Worker (the machine's storage is full,
   * errors.mjs `environmentLimit`): the first such error is the run's failure, thrown when
   * the drive has stopped, and the control route answers it as the user's to fix.
   * @param {Error} error
   */
  fail(error) {
    if (this.failure) return;
    this.failure = error;
    this.current?.bump();
    this.scheduler.changed();
  }

  /** @param {string} cause @param {string} detail the first cause wins */
  markUnsupported(cause, detail) {
    if (this.unsupported) return;
    this.unsupported = { cause, detail };
    this.current?.bump();
    this.scheduler.changed();
  }

  /**
   * @param {string} target @param {string} op @param {string} kind @param {unknown} payload
   * @param {string} invocation @param {number} ordinal @param {number} time
   * @param {string} [site] the bundle positions of the Worker's call that made it (call_site.mjs;
   *   the host maps them to `source` and drops them), left out for the platform's own effects
   */
  record(target, op, kind, payload, invocation, ordinal, time, site) {
    assert(time <= this.clock.now, () => `an effect of ${invocation} at ${target} ${op} is stamped ${time}, after the virtual now ${this.clock.now}`);
    if (kind === "call") {
      // Each point opens with its call, so calls' ordinals increase within an invocation.
      const last = this.lastOrdinals.get(invocation) ?? -1;
      assert(ordinal > last, () => `invocation ${invocation} opened point #${ordinal} at ${target} ${op} after point #${last}`);
      this.lastOrdinals.set(invocation, ordinal);
      progress(invocation, `${target} ${op} #${ordinal}`, ordinal);
    }
    this.effects.push(site === undefined ? { target, op, kind, payload, invocation, ordinal, time } : { target, op, kind, payload, invocation, ordinal, time, site });
    // A run whose invocations keep making effects is past its limit here: its real timers
    // may not fire while its I/O keeps the isolate busy (runPlan's timer covers a quiet run).
    if (kind === "call" && originals.dateNow.call(originals.Date) - this.startedAtMs > this.runLimitMs) this.overRunLimit();
  }


  /** @template T @param {() => Promise<T>} perform @returns {Promise<T>} */
  serialize(perform) {
    const next = this.chain.then(perform);
    this.chain = next.then(() => {}, () => {});
    return next;
  }

  /**
   * Real work that is not an effect (Web Crypto): the current invocation counts as busy
   * until it settles, so the drive waits for it instead of calling the invocation idle.
   * @param {Promise<unknown>} promise
   */
  work(promise) {
    const inv = this.current;
    if (!inv || !(promise instanceof Promise)) return promise;
    inv.inflight++;
    inv.bump();
    const done = () => {
      inv.inflight--;
      inv.bump();
    };
    promise.then(done, done);
    return promise;
  }

  /**
   * The Worker's handler for `method` (`queue`, `fetch`), as the runtime calls it: a drive's,
   * or a record's delivering its own events (a produced message to a queue the Worker consumes).
   * @param {string} method
   */
  handler(method) {
    let handler = this.handlers.get(method);
    if (!handler) {
      handler = this.guard(handlerFor(this.userModule, method));
      this.handlers.set(method, handler);
    }
    return handler;
  }

  /**
   * The Worker's code a drive calls (a handler, an entrypoint's method), as the runtime calls it:
   * an invocation that ran past the CPU limit before its first point never gets to run.
   * @template E @param {(event: E, env: any, ctx: any) => unknown} user
   * @returns {(event: E, env: any, ctx: any) => unknown}
   */
  guard(user) {
    return (event, env, ctx) => {
      const inv = this.started;
      if (inv && this.stopsForCpu(inv, -1)) {
        inv.crash();
        return new Promise(() => {});
      }
      return user(event, env, ctx);
    };
  }

  /**
   * `process.exit(code)` called by the Worker's code while an invocation runs: workerd cancels
   * the request there, so the invocation crashes there (nothing after it runs), its outcome
   * `crashed` with the call as its error. Never the run's or the checker's exit.
   * @param {unknown} code
   */
  exitInvocation(code) {
    const inv = this.current ?? this.started;
    const call = `process.exit(${code === undefined ? "" : safeText(code)})`;
    const error = new Error(`${call} was called; the runtime cancels the invocation there`);
    error.name = "ProcessExit";
    if (inv && !inv.dead) {
      inv.exited = uncaughtError(error);
      inv.crash();
    }
    throw new CrashSignal(inv?.id ?? "(none)", call);
  }

  /** The run went past its own wall-clock limit (`runLimitMs`): it ends UNSUPPORTED, naming who was still at work. */
  overRunLimit() {
    const inv = this.current ?? this.started;
    const last = this.effects.at(-1);
    const where = inv ? `${inv.id} was still running` + (last ? ` (the last effect: ${last.target} ${last.op} #${last.ordinal} of ${last.invocation})` : "") : "no invocation had started";
    this.markUnsupported("run_time_limit", `the run went on past its own limit of ${this.runLimitMs} ms of real time ` +
      `(${RUN_LIMIT_FACTOR} times the effect hang bound, effectHangMs ${this.effectHangMs}); ${where}: a loop that keeps making effects and never ends? ` +
      `(raise effect_hang_ms if a run of this scenario is meant to take longer)`);
  }

  /** @param {string} id */
  startInvocation(id) {
    progress(id, "start", null);
    const inv = new Invocation(id);
    this.scheduler.bind(inv);
    this.started = inv;
    return inv;
  }

  /**
   * True when `inv` ran past the Worker's CPU limit right after its point `ordinal` (-1: its
   * start) in an earlier try of this run: Cloudflare stops it there, so it stops here, as
   * a crash stops it, and its outcome is `timed_out`.
   * @param {import("./effects.mjs").Invocation} inv @param {number} ordinal
   */
  stopsForCpu(inv, ordinal) {
    if (this.cpuExceeded.get(inv.id) !== ordinal) return false;
    inv.timedOut = true;
    return true;
  }

  /**
   * How `inv`'s handler call ended, recorded when it settled (a run already UNSUPPORTED records
   * none: the run has no outcome). The drive fills in what the platform did next
   * (`deadLettered`, `retriedAll`) on the record returned.
   * @param {Invocation} inv @param {string} drive the kind of event delivered (`queue`, `http`)
   * @param {import("./settle.mjs").Outcome} outcome
   * @returns {InvocationOutcome | null}
   */
  recordOutcome(inv, drive, outcome) {
    if (outcome.kind === "unsupported" || this.stopped) return null;
    /** @type {InvocationOutcome} */
    const record = { invocation: inv.id, drive, outcome: inv.timedOut ? "timed_out" : outcome.kind };
    if (inv.nextOrdinal > 0) record.ordinal = inv.nextOrdinal - 1;
    if (outcome.kind === "threw") record.error = uncaughtError(outcome.error);
    else if (outcome.kind === "crashed" && inv.exited) record.error = inv.exited;
    this.invocations.push(record);
    return record;
  }

  /**
   * A bound stopped what the platform would have continued (eutaxy.core.cuts): recorded unless
   * the run is already UNSUPPORTED. `platformLimit` is left out when the platform has none.
   * @param {{bound: string, where: string, invocation: string, left: string[], limit: number, platformLimit?: number | null}} cut
   */
  recordCut(cut) {
    if (this.stopped) return;
    /** @type {Cut} */
    const record = { bound: cut.bound, where: cut.where, invocation: cut.invocation, left: cut.left, limit: cut.limit };
    if (cut.platformLimit !== undefined && cut.platformLimit !== null) record.platformLimit = cut.platformLimit;
    this.cuts.push(record);
  }

  /** The drive is done with `inv`: whatever of its code still runs is refused. @param {Invocation} inv */
  endInvocation(inv) {
    inv.dead = true;
    clearTurns(inv);
    this.globals.dropTimers(inv);
    this.scheduler.release(inv);
  }

  /**
   * A class a kind's binding names (a Workflow's), as `inv` constructs it: the module exporting
   * it, its name there and the env its code sees; the Worker's own, or a callee Worker's under
   * its alias (bindings/callee.mjs).
   * @param {string} className @param {Invocation} inv
   * @returns {{module: any, className: string, env: Record<string, unknown>}}
   */
  classOf(className, inv) {
    return calleeClass(this, className, inv) ?? { module: this.userModule, className, env: this.envFor(inv) };
  }

  /** The env one invocation sees: each owned binding as its record presents it, the rest as they are. @param {Invocation} inv */
  envFor(inv) {
    /** @type {Record<string, unknown>} */
    const env = {};
    for (const [name, value] of Object.entries(this.realEnv)) {
      if (name === CONFIG_BINDING || name === ASSETS_BINDING || this.calleeNames.has(name)) continue;
      const owner = this.owners.get(name);
      env[name] = owner ? proxyOf(owner, this, inv, name, value) : value;
    }
    for (const [name, owner] of this.owners) {
      if (owner.record.standsIn && owner.record.proxy && !(name in env) && !this.calleeNames.has(name)) env[name] = proxyOf(owner, this, inv, name, undefined);
    }
    return env;
  }

  result() {
    const faultDecisions = this.follower.decisions.filter((decision) => decision.kind === "fault").length;
    assert(faultDecisions <= this.follower.eligible, () => `${faultDecisions} fault decisions were made at ${this.follower.eligible} eligible points`);
    const lines = this.console.result();
    return {
      protocol: PROTOCOL_VERSION,
      effects: this.effects,
      eligible: this.follower.eligible,
      decisions: this.follower.decisions,
      end: this.unsupported ? { kind: "unsupported", ...this.unsupported } : { kind: "completed" },
      ...(lines.length > 0 ? { console: lines } : {}),
      ...(this.invocations.length > 0 ? { invocations: this.invocations } : {}),
      ...(this.cuts.length > 0 && !this.unsupported ? { cuts: this.cuts } : {}),
    };
  }
}

/** `value` as a message shows it; never throws. @param {unknown} value */
function safeText(value) {
  try {
    return typeof value === "string" ? JSON.stringify(value) : String(value);
  } catch {
    return "(unprintable value)";
  }
}

/**
 * The Worker's handler for a drive, called as the runtime calls it: a handler object's
 * method with the object as `this`, or a WorkerEntrypoint class constructed per invocation.
 * @param {any} userModule @param {string} method
 */
export function handlerFor(userModule, method) {
  const exported = userModule.default;
  if (typeof exported === "function" && typeof exported.prototype?.[method] === "function") {
    return (/** @type {unknown} */ event, /** @type {any} */ env, /** @type {any} */ ctx) => new exported(ctx, env)[method](event);
  }
  if (exported && typeof exported[method] === "function") {
    return (/** @type {unknown} */ event, /** @type {any} */ env, /** @type {any} */ ctx) => exported[method](event, env, ctx);
  }
  if (exported === undefined) {
    throw new UserFacingError(`the Worker has no default export; export its handlers: export default { async ${method}(...) { ... } }`);
  }
  throw new UserFacingError(`the Worker's default export has no ${method}() handler`);
}

/**
 * The env names the callees' own bindings and vars take in the isolate (qualified by the callee
 * Worker's name, `inventory/DB`), which only the callee's env view shows.
 * @param {RuntimeConfig} config @returns {Set<string>}
 */
function calleeNames(config) {
  /** @type {Set<string>} */
  const names = new Set();
  for (const callee of Object.values(config.callees ?? {})) {
    for (const name of Object.values(callee.env)) if (name.startsWith(`${callee.name}/`)) names.add(name);
  }
  return names;
}

/**
 * Perform one run.
 * @param {any} plan @param {RuntimeConfig} config @param {Record<string, any>} realEnv @param {any} userModule
 * @param {Record<string, any>} [calleeModules] each callee Worker's module namespace, by its binding
 */
export async function runPlan(plan, config, realEnv, userModule, calleeModules = {}) {
  if (plan?.protocol !== PROTOCOL_VERSION) throw new Error(`plan: protocol version ${plan?.protocol}, expected ${PROTOCOL_VERSION}`);
  if (active.run) throw new Error("a run is already in progress in this isolate");
  const run = new Run(plan, config, realEnv, userModule, calleeModules);
  const drive = run.scenario.drive ?? {};
  const delivery = Object.hasOwn(DRIVES, drive.kind) ? DRIVES[drive.kind] : null;
  // With assets in front, a request they answer needs no fetch() handler: the http drive asks
  // for it once a request reaches the Worker.
  const deferred = drive.kind === "http" && assetsOf(config) !== null;
  const handler = delivery
    ? delivery.handler
      ? delivery.handler(run, drive)
      : deferred
      ? (/** @type {any} */ event, /** @type {any} */ env, /** @type {any} */ ctx) => run.handler(delivery.method)(event, env, ctx)
      : run.handler(delivery.method)
    : null;
  await resetBindings(config, realEnv);
  if (usedAtLoad.length) {
    run.markUnsupported("weakref", `${usedAtLoad.join(" and ")} was used at module top level, when the Worker loaded; garbage collection is not virtualised`);
  }
  if (!handler) {
    run.markUnsupported("drive_not_modelled", `the ${JSON.stringify(drive.kind)} drive is not modelled by the Cloudflare runtime yet`);
  }
  active.run = run;
  const cancelLimit = realTimer(run.runLimitMs, () => run.overRunLimit());
  try {
    run.globals.install();
    run.scheduler.watch(run.globals);
    for (const [object, name, value] of run.console.methods()) run.globals.set(object, name, value);
    const processObject = /** @type {any} */ (globalThis).process;
    if (processObject && typeof processObject.exit === "function") {
      run.globals.set(processObject, "exit", (/** @type {unknown} */ code) => run.exitInvocation(code));
    }
    for (const record of RECORDS) for (const [object, name, value] of record.globals?.(run) ?? []) run.globals.set(object, name, value);
    if (delivery && handler && !run.stopped) await delivery.drive(run, drive, handler);
  } finally {
    cancelLimit();
    run.globals.restore();
    active.run = null;
  }
  if (run.failure) throw run.failure;
  if (!run.stopped) {
    alarmCuts(run);
    for (const { target, table, rows } of await snapshotBindings(config, realEnv, run)) {
      run.record(target, table, "snapshot", { rows }, "snapshot", 0, run.clock.now);
    }
  }
  await closeConnections(run);
  return run.result();
}
