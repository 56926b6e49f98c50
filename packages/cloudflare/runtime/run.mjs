// @ts-check
/**
 * One run inside the isolate: reset, install the virtual globals, drive the events as
 * invocations, restore the globals, snapshot, answer. The RunResult is the protocol's
 * (docs/contract.md): `{protocol, effects, eligible, decisions, end}`.
 *
 * With `maxConcurrentInvocations` 1 (the default) a run is sequential: one invocation in
 * flight at a time, fault decisions only. Above 1, the turn scheduler (turns.mjs) interleaves
 * invocations at their effects and makes a turn decision at every turn; the invocation
 * running is then named by its async context rather than by `current`'s field.
 */

import { active } from "./active.mjs";
import { usedAtLoad } from "./patch.mjs";
import { makeD1, resetD1, snapshotD1 } from "./d1.mjs";
import { Invocation } from "./effects.mjs";
import { VirtualClock, VirtualGlobals } from "./globals.mjs";
import { PlanFollower } from "./plan.mjs";
import { Scheduler, watchReads } from "./turns.mjs";
import { driveQueue } from "./queue.mjs";
import { driveHttp } from "./http.mjs";
import { makeFetch } from "./fetch.mjs";
import { progress } from "./progress.mjs";
import { trapBinding, trappedCaches } from "./unsupported.mjs";

export const PROTOCOL_VERSION = 1;

/** Real time an effect may take before it counts as hung, when the scenario names no budget. */
export const DEFAULT_BUDGET_MS = 10000;

/** The control binding's name; it is never shown to the Worker. */
export const CONFIG_BINDING = "__EUTAXY_CONFIG";

/** A failure that is the user's to fix (the Worker has no handler for the drive, ...). */
export class UserFacingError extends Error {
  name = "UserFacingError";
}

/**
 * @typedef {{d1?: Record<string, {schema: string[], sources?: string[]}>, queueConsumers?: Record<string, {maxRetries?: number}>,
 *   traps?: Record<string, string>}} RuntimeConfig
 */

export class Run {
  /** @param {any} plan @param {RuntimeConfig} config @param {Record<string, any>} realEnv */
  constructor(plan, config, realEnv) {
    this.plan = plan;
    this.scenario = plan.scenario ?? {};
    this.config = config;
    this.realEnv = realEnv;
    this.clock = new VirtualClock();
    this.follower = new PlanFollower(plan);
    /** @type {object[]} the effect log, in the order effects happened */
    this.effects = [];
    /** @type {{cause: string, detail: string} | null} */
    this.unsupported = null;
    /** @type {Invocation | null} the invocation in flight (sequential runs) */
    this._current = null;
    const concurrency = this.scenario.bounds?.maxConcurrentInvocations ?? 1;
    /** @type {Scheduler | null} the turn scheduler, in concurrent runs only */
    this.turns = Number.isInteger(concurrency) && concurrency > 1 ? new Scheduler(this, concurrency) : null;
    const budget = this.scenario.bounds?.budgetMs;
    this.budgetMs = Number.isFinite(budget) && budget > 0 ? budget : DEFAULT_BUDGET_MS;
    this.globals = new VirtualGlobals(plan.streams?.globals ?? [1, 0, 0, 0], this.clock, {
      current: () => this.current,
      unsupported: (cause, detail) => this.markUnsupported(cause, detail),
      work: (promise) => this.work(promise),
    });
    /** Real I/O of effects runs one at a time, in call order, so results log in call order. */
    this.chain = Promise.resolve();
  }

  /** The invocation whose code is running (concurrent runs: from its async context). */
  get current() {
    return this.turns ? this.turns.running() : this._current;
  }

  set current(inv) {
    this._current = inv;
  }

  /** True once the run is UNSUPPORTED: nothing more is driven or performed. */
  get stopped() {
    return this.unsupported !== null;
  }

  /** @param {string} cause @param {string} detail the first cause wins */
  markUnsupported(cause, detail) {
    if (this.unsupported) return;
    this.unsupported = { cause, detail };
    this.current?.bump();
    this.turns?.changed();
  }

  /**
   * @param {string} target @param {string} op @param {string} kind @param {unknown} payload
   * @param {string} invocation @param {number} ordinal @param {number} time
   */
  record(target, op, kind, payload, invocation, ordinal, time) {
    this.effects.push({ target, op, kind, payload, invocation, ordinal, time });
    if (kind === "call") progress(invocation, `${target} ${op} #${ordinal}`);
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

  /** @param {string} id */
  startInvocation(id) {
    progress(id, "start");
    const inv = new Invocation(id);
    this.current = inv;
    this.turns?.bind(inv);
    return inv;
  }

  /** The drive is done with `inv`: whatever of its code still runs is refused. @param {Invocation} inv */
  endInvocation(inv) {
    inv.dead = true;
    this.globals.dropTimers(inv);
    if (this.current === inv) this.current = null;
  }

  /** The env one invocation sees: its own D1 proxies, traps for what is not allowed, vars as they are. @param {Invocation} inv */
  envFor(inv) {
    /** @type {Record<string, unknown>} */
    const env = {};
    for (const [name, value] of Object.entries(this.realEnv)) {
      if (name === CONFIG_BINDING) continue;
      if (this.config.d1?.[name]) env[name] = makeD1(this, inv, name, value);
      else if (this.config.traps?.[name]) env[name] = trapBinding(this.config.traps[name], name);
      else env[name] = value;
    }
    for (const [name, kind] of Object.entries(this.config.traps ?? {})) {
      if (!(name in env)) env[name] = trapBinding(kind, name);
    }
    return env;
  }

  result() {
    return {
      protocol: PROTOCOL_VERSION,
      effects: this.effects,
      eligible: this.follower.eligible,
      decisions: this.follower.decisions,
      end: this.unsupported ? { kind: "unsupported", ...this.unsupported } : { kind: "completed" },
    };
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
 * Why a schema did not apply: its statements one at a time on an emptied database, the
 * first that fails named by its file and line (the user's to fix); else the reset's own error.
 * @param {string} binding @param {any} real @param {string[]} schema @param {string[]} sources @param {unknown} error
 */
async function schemaFailure(binding, real, schema, sources, error) {
  try {
    await resetD1(binding, real, []);
  } catch {
    return error;
  }
  for (let i = 0; i < schema.length; i++) {
    try {
      await real.prepare(schema[i]).run();
    } catch (failed) {
      const text = schema[i].length > 120 ? `${schema[i].slice(0, 117)}...` : schema[i];
      const message = /** @type {Error} */ (failed)?.message ?? String(failed);
      return new UserFacingError(`${sources[i] ?? `statement ${i + 1}`}: the schema of D1 binding ${binding} does not apply: ${message}, in: ${text}`);
    }
  }
  return error;
}

/**
 * Perform one run.
 * @param {any} plan @param {RuntimeConfig} config @param {Record<string, any>} realEnv @param {any} userModule
 */
export async function runPlan(plan, config, realEnv, userModule) {
  if (plan?.protocol !== PROTOCOL_VERSION) throw new Error(`plan: protocol version ${plan?.protocol}, expected ${PROTOCOL_VERSION}`);
  if (active.run) throw new Error("a run is already in progress in this isolate");
  const run = new Run(plan, config, realEnv);
  const drive = run.scenario.drive ?? {};
  const handler = drive.kind === "queue" ? handlerFor(userModule, "queue") : drive.kind === "http" ? handlerFor(userModule, "fetch") : null;
  for (const [name, { schema, sources }] of Object.entries(config.d1 ?? {})) {
    try {
      await resetD1(name, realEnv[name], schema);
    } catch (error) {
      throw await schemaFailure(name, realEnv[name], schema, sources ?? [], error);
    }
  }
  if (usedAtLoad.length) {
    run.markUnsupported("weakref", `${usedAtLoad.join(" and ")} was used at module top level, when the Worker loaded; garbage collection is not virtualised`);
  }
  if (!handler) {
    run.markUnsupported("drive_not_modelled", `the ${JSON.stringify(drive.kind)} drive is not modelled by the Cloudflare runtime yet`);
  }
  active.run = run;
  try {
    run.globals.install();
    const turns = run.turns;
    if (turns) watchReads(run.globals, (what) => turns.noteMore(what));
    run.globals.set(globalThis, "fetch", makeFetch(run));
    run.globals.set(globalThis, "caches", trappedCaches());
    if (handler && !run.stopped) await (drive.kind === "http" ? driveHttp : driveQueue)(run, drive, /** @type {any} */ (handler));
  } finally {
    run.globals.restore();
    active.run = null;
    run.current = null;
  }
  if (!run.stopped) {
    for (const name of Object.keys(config.d1 ?? {}).sort()) {
      for (const { table, rows } of await snapshotD1(name, realEnv[name])) {
        run.record(`D1:${name}`, table, "snapshot", { rows }, "snapshot", 0, run.clock.now);
      }
    }
  }
  return run.result();
}
