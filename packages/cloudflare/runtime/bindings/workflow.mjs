// @ts-check
/**
 * The Workflow record: a model of the Workflows engine, running the Worker's own
 * WorkflowEntrypoint classes (its Python record is eutaxy/cloudflare/bindings/workflow.py).
 *
 * Every other record proxies the real local implementation; this one is the engine, because the
 * local engine runs steps on its own real-time clock and retry loop and cannot be restarted
 * between a step committing and its result being persisted, which is the case that matters.
 * There is no Miniflare binding behind it: the record stands in for one.
 *
 * - Entry (its kind's, `workflow`): per binding `{setup, settings: {className, workflowName}}`,
 *   `setup` the `workflow` step (a binding without one is the index's trap); the kind's policy
 *   gives the ladders of `create`, `step` and `step_result` (`ladderOf`), a step's default
 *   retries (`stepRetries`: limit, delay, backoff) and timeout (`stepTimeoutMs`).
 * - Proxy: the binding. `create({id?, params?})` is one `io` effect at `Workflow:<binding>` op
 *   `create` (the write ladder: crash_before and error, not created; ambiguous, created and the
 *   answer lost; crash_after, the caller died after it), `{args: {id, params}}`, result `{id}`;
 *   an id that exists throws `instance.already_exists`, an invalid one "Workflow instance has
 *   invalid id"; without an id one is drawn from the run's random stream (crypto.randomUUID);
 *   without params the payload is `{}`. `get(id)` answers the instance's handle, or throws
 *   `instance.not_found` (Miniflare's message). A handle's `status()` answers `{status, output,
 *   error}` from the model, no effect. `sendEvent({type, payload})` is one `io` effect, op
 *   `send_event`, with a stub call's faults (the write ladder), `{args: {instance, type, payload}}`;
 *   refused (it throws) for an instance that is complete or errored, or a type the engine would
 *   not take. createBatch, pause, resume, terminate and restart are not modelled
 *   (`binding_not_modelled`).
 * - Events: the instances, as a scheduler source beside the drive's. An instance ready to run
 *   (created, or crashed and due to restart) starts as the invocation
 *   `Workflow:<binding>/<id>#<attempt>`, which constructs the Worker's class with that
 *   invocation's env and calls `run(event, step)`: what it returns is the instance's output
 *   (status complete), what it throws its error (status errored), and a crash restarts it, at
 *   once, re-running run() from the start with the persisted step and sleep results.
 * - In a concurrent run each step point is a turn (the engine reads and persists a step
 *   asynchronously, so other events may run between steps), and so is every effect of the
 *   instance's own code: an instance interleaves with the drive's invocations and other instances.
 * - step.do(name, [config], callback): a persisted result (by name and count) is answered at
 *   once and a persisted error thrown again, with no effect. Otherwise each attempt is two
 *   `platform` points around the callback, which runs as the instance's code (its effects are
 *   the invocation's): `step` before it `{args: {instance, step, count, attempt}}` (crash_before:
 *   the instance restarts before the step runs) and `step_result` after it, result `{value}` or
 *   `{error}` (crash_after: the step ran but its result was not persisted, so it runs again after
 *   the restart; ambiguous: it ran but counts as failed, as a timeout does, and the code sees a
 *   WorkflowTimeoutError). A failed attempt is retried after its delay in virtual time (the
 *   step's config merged over the policy's field by field; backoff exponential, linear or
 *   constant), up to its limit and `bounds.maxRedeliveries` (a cut: the instance stops there),
 *   except a NonRetryableError (an Error so named, or whose message starts so), rethrown and not
 *   persisted. Spent retries persist the last error, which a restart throws again. The attempt
 *   count, the config the first attempt resolved and a pending retry's deadline are persisted,
 *   so a restart goes on counting and waits only the rest.
 * - step.sleep(name, duration) / step.sleepUntil(name, time): one `platform` point `sleep`
 *   (no faults), `{args: {instance, step, count, ms}}`, then a wait in virtual time; the
 *   deadline is persisted before the wait and the sleep marked done after it, so a restart
 *   waits only the rest and never sleeps it again. A sleep is keyed by its name and duration,
 *   as the engine keys it. Durations are read as the engine reads them.
 * - step.waitForEvent(name, {type, timeout}): an event of the type sent before the wait is
 *   buffered and returned at once (`event` point, `{payload}`); with none, one `wait` point
 *   (its deadline, the timeout or 24 hours, persisted) and the instance suspends: status
 *   `waiting`, the wait's promise never settles and the invocation ends there (nothing after the
 *   wait runs, no catch around it sees anything). The event's sendEvent, or the deadline in
 *   virtual time, wakes it: run() starts again with what the engine persisted, and the wait
 *   returns the event, or throws a WorkflowTimeoutError the code may catch (`wait_timeout`
 *   point). The wait's event or error is persisted by name and count, so a later restart
 *   replays it instead of taking another event.
 * - Snapshot: per binding, table `instances`: `{id, status, params, output?, error?}` sorted by
 *   id; table `steps`: each persisted step result `{instance, step, count, value}` or `{..., error}`,
 *   and each wait's `{instance, step, count, wait: true, value}` (the event's payload) or `{..., error}`.
 *
 * UNSUPPORTED: the methods named above (`binding_not_modelled`), a rollback handler (`binding_not_modelled`), a step name or config
 * the engine rejects (`workflow_fatal`), a step result or output that is not plain data
 * (`not_plain_data`), event.workflowName without a `name` in the config's entry, and a class the
 * Worker does not export or that does not extend WorkflowEntrypoint (the run fails as the user's
 * to fix).
 */

import { compareText } from "../canonical.mjs";
import { callSite } from "../call_site.mjs";
import { effectPoint, never, NO_FAULTS } from "../effects.mjs";
import { UserFacingError } from "../errors.mjs";
import { maxRedeliveriesOf, redeliveryStop } from "../queue.mjs";
import { refuse } from "../unsupported.mjs";
import { errorFields, logged, plainData } from "../values.mjs";
import { kindBindings, ladderOf } from "./policy.mjs";

/** The kind's name: its entry in the runtime config's `kinds`. */
const KIND = "workflow";

/** Miniflare's bounds on an instance id and a step name (workflows-shared). */
const INSTANCE_ID = /^[a-zA-Z0-9_][a-zA-Z0-9-_]*$/;
const INSTANCE_ID_LENGTH_MAX = 100;
const STEP_NAME_LENGTH_MAX = 256;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** How the engine reads a duration's unit (a year is 365.25 days). @type {Record<string, number>} */
const UNIT_MS = { year: 31_557_600_000, month: 2_592_000_000, week: 604_800_000, day: 86_400_000, hour: 3_600_000, minute: 60_000, second: 1000, m: 1 };

/**
 * A duration as the engine reads it: a number (or numeric string) is milliseconds, else
 * "<n> <unit>[s]"; NaN when it is neither.
 * @param {unknown} duration @returns {number}
 */
export function durationMs(duration) {
  if (typeof duration === "number") return duration;
  const text = String(duration);
  if (!Number.isNaN(Number(text))) return Number(text);
  const match = text.match(/^([^ ]+) +(\w\w*?)s?$/);
  if (!match) return Number.NaN;
  return Number(match[1]) * (UNIT_MS[match[2]] ?? 1);
}

/**
 * The delay before the retry after failed attempt `attempt` (1 for the first), as the engine
 * computes it: the base delay, doubled per attempt (exponential), times the attempt (linear), or as it is.
 * @param {{delay: unknown, backoff: string}} retries @param {number} attempt @returns {number}
 */
export function retryDelayMs(retries, attempt) {
  const base = durationMs(retries.delay);
  if (retries.backoff === "exponential") return base * 2 ** (attempt - 1);
  if (retries.backoff === "linear") return base * attempt;
  return base;
}

/**
 * @typedef {{attempts: number, config: {retries: {limit: number, delay: unknown, backoff: string}, timeout: unknown}, retryAt: number | null}} StepState
 * @typedef {{binding: string, id: string, params: unknown, created: number, status: string, output?: unknown,
 *   error?: {name: string, message: string}, attempts: number, ready: boolean, order: number,
 *   steps: Map<string, {name: string, count: number, value?: unknown, error?: {name: string, message: string}, thrown?: unknown}>,
 *   stepStates: Map<string, StepState>, sleeps: Map<string, {until: number, done: boolean}>, halted: boolean,
 *   events: {type: string, payload: unknown, timestamp: Date}[], waitDeadlines: Map<string, number>,
 *   waits: Map<string, {name: string, count: number, event?: {type: string, payload: unknown, timestamp: Date}, error?: {name: string, message: string}, thrown?: unknown}>,
 *   waiting: {type: string, deadline: number} | null}} Instance
 */

/** Each run's instances, by binding then id. @type {WeakMap<import("../run.mjs").Run, Map<string, Map<string, Instance>>>} */
const runInstances = new WeakMap();
/** A run-wide counter: instances ready at once start in the order they became ready. @type {WeakMap<import("../run.mjs").Run, number>} */
const orders = new WeakMap();

/** @param {import("../run.mjs").Run} run @param {string} binding */
function instancesOf(run, binding) {
  let bindings = runInstances.get(run);
  if (!bindings) runInstances.set(run, (bindings = new Map()));
  let instances = bindings.get(binding);
  if (!instances) bindings.set(binding, (instances = new Map()));
  return instances;
}

/** @param {import("../run.mjs").Run} run */
function nextOrder(run) {
  const next = (orders.get(run) ?? 0) + 1;
  orders.set(run, next);
  return next;
}

/** The Worker's Workflow bindings, each its entry with its settings read out. @param {any} config @returns {[string, any][]} */
function workflowBindings(config) {
  return kindBindings(config, KIND).map(([name, entry]) => [name, { ...entry, ...entry.settings }]);
}

/** @param {string} fault */
function injectedError(fault) {
  return fault === "ambiguous"
    ? new Error("Network connection lost. (eutaxy: ambiguous outcome injected; the instance was created)")
    : new Error("Network connection lost. (eutaxy: error injected; the instance was not created)");
}

/** An Error with the engine's name. @param {string} name @param {string} message */
function namedError(name, message) {
  const error = new Error(message);
  error.name = name;
  return error;
}

/** @param {unknown} error */
function nonRetryable(error) {
  return error instanceof Error && (error.name === "NonRetryableError" || String(error.message).startsWith("NonRetryableError"));
}

/** The run was just marked UNSUPPORTED: a signal that stops the caller. @param {string} cause @param {string} detail */
function unsupported(cause, detail) {
  return refuse(cause, detail);
}

/**
 * The binding one invocation sees.
 * @param {import("../run.mjs").Run} run @param {import("../effects.mjs").Invocation} inv
 * @param {string} binding @param {any} entry
 */
function makeBinding(run, inv, binding, entry) {
  const instances = instancesOf(run, binding);
  const target = `Workflow:${binding}`;
  /** @param {string} what */
  const notModelled = (what) => unsupported("binding_not_modelled", `Workflow binding ${binding}: ${what} is not modelled`);
  return {
    /** @param {{id?: string, params?: unknown}} [options] */
    async create(options = {}) {
      const id = options.id ?? crypto.randomUUID();
      const params = options.params === undefined ? {} : options.params;
      if (typeof id !== "string" || id.length > INSTANCE_ID_LENGTH_MAX || !INSTANCE_ID.test(id)) throw namedError("WorkflowError", "Workflow instance has invalid id");
      if (!plainData(params)) throw notPlain(run, `Workflow ${binding}.create() was given params that are not plain data`);
      await effectPoint(run, inv, {
        kind: "io", target, op: "create", args: { id, params: logged(params) }, ladder: ladderOf(entry, "create"), injectedError,
        summarize: (created) => ({ id: created }),
        perform: async () => {
          if (instances.has(id)) throw new Error("instance.already_exists");
          instances.set(id, {
            binding, id, params: structuredClone(params), created: run.clock.now, status: "queued", attempts: 0, ready: true,
            order: nextOrder(run), steps: new Map(), stepStates: new Map(), sleeps: new Map(), halted: false,
            events: [], waitDeadlines: new Map(), waits: new Map(), waiting: null,
          });
          return id;
        },
      });
      return handle(run, inv, entry, binding, id, instances, notModelled);
    },
    /** @param {string} id */
    async get(id) {
      if (!instances.has(String(id))) throw new Error("instance.not_found");
      return handle(run, inv, entry, binding, String(id), instances, notModelled);
    },
    createBatch: () => {
      throw notModelled("createBatch()");
    },
  };
}

/** @param {import("../run.mjs").Run} run @param {string} detail */
function notPlain(run, detail) {
  run.markUnsupported("not_plain_data", detail);
  return unsupported("not_plain_data", detail);
}

/**
 * An instance's handle: its status from the model, and sendEvent, one effect at
 * `Workflow:<binding>` op `send_event` with a stub call's faults (the write ladder), refused
 * for an instance that has ended or an event type the engine would not take.
 * @param {import("../run.mjs").Run} run @param {import("../effects.mjs").Invocation} inv @param {any} entry
 * @param {string} binding @param {string} id @param {Map<string, Instance>} instances
 * @param {(what: string) => Error} notModelled
 */
function handle(run, inv, entry, binding, id, instances, notModelled) {
  const refused = (/** @type {string} */ method) => () => {
    throw notModelled(`instance.${method}()`);
  };
  return {
    id,
    async status() {
      const instance = /** @type {Instance} */ (instances.get(id));
      return { status: instance.status, output: instance.output ?? null, error: instance.error ?? null };
    },
    /** @param {{type: string, payload?: unknown}} event */
    async sendEvent(event) {
      const type = event?.type;
      const payload = event?.payload;
      if (typeof type !== "string" || type.length > INSTANCE_ID_LENGTH_MAX || !INSTANCE_ID.test(type)) {
        throw namedError("WorkflowError", `Workflow instance ${id}: event type ${JSON.stringify(type)} is invalid (up to ${INSTANCE_ID_LENGTH_MAX} letters, digits, - and _)`);
      }
      if (!plainData(payload)) throw notPlain(run, `Workflow ${binding}: sendEvent() was given a payload that is not plain data`);
      // A refusal is the effect's result, and the error is made here, in the Worker's call, so
      // its stack names the Worker's line.
      /** @param {string} status */
      const refusal = (status) => namedError("WorkflowError", `Workflow instance ${id} is ${status}: it takes no more events`);
      const refused = await effectPoint(run, inv, {
        kind: "io", target: `Workflow:${binding}`, op: "send_event", args: { instance: id, type, payload: logged(payload) },
        ladder: ladderOf(entry, "send_event"), injectedError: sendError,
        summarize: (/** @type {string | null} */ status) => (status === null ? { sent: true } : { error: errorFields(refusal(status)) }),
        perform: async () => {
          const instance = /** @type {Instance} */ (instances.get(id));
          if (instance.status === "complete" || instance.status === "errored") return instance.status;
          instance.events.push({ type, payload: structuredClone(payload), timestamp: new Date(run.clock.now) });
          // A wait for this type wakes the instance, which re-runs run() and finds the event.
          if (instance.waiting?.type === type) wake(run, instance);
          return null;
        },
      });
      if (refused !== null) throw refusal(refused);
    },
    pause: refused("pause"),
    resume: refused("resume"),
    terminate: refused("terminate"),
    restart: refused("restart"),
  };
}

/** @param {string} fault */
function sendError(fault) {
  return fault === "ambiguous"
    ? new Error("Network connection lost. (eutaxy: ambiguous outcome injected; the event was sent)")
    : new Error("Network connection lost. (eutaxy: error injected; the event was not sent)");
}

/** A waiting instance resumes: it is ready to run again. @param {import("../run.mjs").Run} run @param {Instance} instance */
function wake(run, instance) {
  instance.waiting = null;
  instance.ready = true;
  instance.order = nextOrder(run);
}

/** What ends an instance's run without its code settling (a cut): the engine stopped it. */
const HALTED = Symbol("eutaxy: the engine stopped the instance");

/**
 * The class the instance runs, constructed as the runtime would: workerd refuses to construct a
 * WorkflowEntrypoint subclass without a native ExecutionContext, so for this one synchronous
 * `new` the class's base is a plain stand-in setting ctx and env (the class's own constructor
 * and field initialisers run as written), put back at once.
 * @param {any} userModule @param {string} className @param {unknown} ctx @param {unknown} env
 */
function construct(userModule, className, ctx, env) {
  const Class = userModule?.[className];
  if (typeof Class !== "function") {
    throw new UserFacingError(`the Worker's entry does not export the Workflow class ${className}; export it: export class ${className} extends WorkflowEntrypoint { ... }`);
  }
  let link = Class;
  while (link && Object.getPrototypeOf(link)?.name !== "WorkflowEntrypoint") link = Object.getPrototypeOf(link);
  if (!link || link === Function.prototype) throw new UserFacingError(`the Workflow class ${className} does not extend WorkflowEntrypoint (import { WorkflowEntrypoint } from "cloudflare:workers")`);
  const base = Object.getPrototypeOf(link);
  const StandIn = function (/** @type {unknown} */ standInCtx, /** @type {unknown} */ standInEnv) {
    Object.assign(this, { ctx: standInCtx, env: standInEnv });
  };
  StandIn.prototype = base.prototype;
  Object.setPrototypeOf(link, StandIn);
  try {
    return new Class(ctx, env);
  } finally {
    Object.setPrototypeOf(link, base);
  }
}

/**
 * Wait in virtual time until `until`: an engine timer owned by the invocation, fired when it
 * waits on nothing else.
 * @param {import("../run.mjs").Run} run @param {number} until @returns {Promise<void>}
 */
function engineWait(run, until) {
  return new Promise((resolve) => {
    run.globals.addTimer(resolve, Math.max(0, until - run.clock.now), [], false);
  });
}

/**
 * The `step` object of one attempt of an instance.
 * @param {import("../run.mjs").Run} run @param {import("../effects.mjs").Invocation} inv
 * @param {Instance} instance @param {any} entry @param {() => void} halt
 */
function makeStep(run, inv, instance, entry, halt) {
  const target = `Workflow:${instance.binding}`;
  /** @type {Map<string, number>} */
  const counts = new Map();
  /** @param {string} key */
  const countOf = (key) => {
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    return count;
  };
  /**
   * The `count`th step.do or waitForEvent (`kind` do or wait) named `name` in this run of the
   * instance, and its key in what the engine persists (`name-count`).
   * @param {string} kind @param {string} name
   */
  const numbered = (kind, name) => {
    const count = countOf(`${kind}:${name}`);
    return { count, key: `${name}-${count}` };
  };
  /** @param {string} name */
  const checkName = (name) => {
    if (typeof name !== "string" || name.length > STEP_NAME_LENGTH_MAX || CONTROL_CHARACTER.test(name)) {
      throw unsupported("workflow_fatal", `Workflow ${instance.binding}: step name ${JSON.stringify(name)} exceeds ${STEP_NAME_LENGTH_MAX} characters or holds a control character, which the engine rejects`);
    }
  };
  /**
   * @param {string} op @param {object} args @param {readonly string[]} ladder @param {() => unknown} perform @param {(value: any) => unknown} summarize
   * @param {string | undefined} site the Worker's step.* call (taken before the method's first await)
   */
  const point = (op, args, ladder, perform, summarize, site) => effectPoint(run, inv, { kind: "platform", target, op, args, ladder, perform, summarize, site });
  const gone = () => inv.dead || run.stopped;
  /**
   * In a concurrent run a step's point is a turn, as the engine reads and persists a step
   * asynchronously: the invocation parks until a turn picks it, so other events may run between
   * steps (a sequential run's scheduler answers null: it goes on at once).
   * @param {string} op
   */
  const turn = async (op) => {
    const parked = run.scheduler.park(inv, target, op);
    if (!parked) return;
    inv.parked++;
    await parked;
    // Its point runs on now: the turn that released it may decide the next (effects.mjs does the same).
    run.scheduler.unparked();
    inv.parked--;
  };
  const api = {
    /**
     * @param {string} name @param {any} configOrCallback @param {any} [maybeCallback]
     * @param {unknown[]} rest
     */
    async do(name, configOrCallback, maybeCallback, ...rest) {
      const called = callSite(api.do);
      const [stepConfig, callback] = typeof configOrCallback === "function" ? [{}, configOrCallback] : [configOrCallback ?? {}, maybeCallback];
      if (gone()) return never();
      checkName(name);
      if (typeof callback !== "function") throw unsupported("workflow_fatal", `Workflow ${instance.binding}: step ${JSON.stringify(name)} has no callback`);
      if (rest.some((value) => value !== undefined) || stepConfig.rollback !== undefined) throw unsupported("binding_not_modelled", `Workflow ${instance.binding}: step ${JSON.stringify(name)} has a rollback handler, which is not modelled`);
      const { count, key } = numbered("do", name);
      const persisted = instance.steps.get(key);
      if (persisted) return replayed(persisted, persisted.value);
      let state = instance.stepStates.get(key);
      if (!state) {
        state = { attempts: 0, config: resolveConfig(instance, name, stepConfig, entry.policy), retryAt: null };
        instance.stepStates.set(key, state);
      }
      const config = state.config;
      for (;;) {
        if (state.retryAt !== null) {
          if (state.retryAt > run.clock.now) await engineWait(run, state.retryAt);
          if (gone()) return never();
          state.retryAt = null;
        }
        const attempt = state.attempts + 1;
        const args = { instance: instance.id, step: name, count, attempt };
        await turn("step");
        if (gone()) return never();
        if (point("step", args, ladderOf(entry, "step"), () => ({}), () => ({}), called) !== "none") return never();
        state.attempts = attempt;
        /** @type {{ok: true, value: unknown} | {ok: false, error: unknown}} */
        let outcome;
        try {
          const value = await callback({ step: { name, count }, attempt, config: structuredClone(config) });
          outcome = { ok: true, value };
        } catch (error) {
          outcome = { ok: false, error };
        }
        if (gone()) return never();
        await turn("step_result");
        if (gone()) return never();
        if (outcome.ok && !plainData(outcome.value)) throw notPlain(run, `Workflow ${instance.binding}: step ${JSON.stringify(name)} returned something that is not plain data, which the engine cannot persist`);
        const settled = outcome;
        const fault = point("step_result", args, ladderOf(entry, "step_result"), () => settled,
          (/** @type {typeof settled} */ done) => ("error" in done ? { error: errorFields(done.error) } : { value: logged(done.value) }), called);
        if (fault === "crash_after") return never();
        if (settled.ok && fault === "none") {
          instance.steps.set(key, { name, count, value: structuredClone(settled.value) });
          instance.stepStates.delete(key);
          return settled.value;
        }
        const error = "error" in settled && fault !== "ambiguous" ? settled.error : namedError("WorkflowTimeoutError", `Execution timed out after ${durationMs(config.timeout)}ms`);
        if (nonRetryable(error)) throw error;
        const stop = redeliveryStop(attempt, config.retries.limit, maxRedeliveriesOf(run));
        if (stop === "dead_letter") {
          instance.steps.set(key, { name, count, error: errorFields(error), thrown: error });
          instance.stepStates.delete(key);
          throw error;
        }
        if (stop === "cut") {
          run.recordCut({ bound: "maxRedeliveries", where: `${target}/${instance.id}`, invocation: inv.id, left: [`${key} attempt ${attempt + 1}`],
            limit: /** @type {number} */ (maxRedeliveriesOf(run)), platformLimit: config.retries.limit });
          halt();
          return never();
        }
        state.retryAt = run.clock.now + retryDelayMs(config.retries, attempt);
      }
    },
    /** @param {string} name @param {unknown} duration */
    async sleep(name, duration) {
      const called = callSite(api.sleep);
      if (gone()) return never();
      checkName(name);
      const ms = durationMs(duration);
      if (!Number.isFinite(ms) || ms < 0) throw unsupported("workflow_fatal", `Workflow ${instance.binding}: step.sleep(${JSON.stringify(name)}) was given the duration ${JSON.stringify(duration)}, which the engine cannot read`);
      return sleepFor(name, ms, called);
    },
    /** @param {string} name @param {Date | number} timestamp */
    async sleepUntil(name, timestamp) {
      const called = callSite(api.sleepUntil);
      if (gone()) return never();
      checkName(name);
      const until = timestamp instanceof Date ? timestamp.valueOf() : Number(timestamp);
      if (until < run.clock.now) throw new Error("You can't sleep until a time in the past, time-traveler");
      return sleepFor(name, until - run.clock.now, called);
    },
    /** @param {string} name @param {{type: string, timeout?: unknown}} options */
    async waitForEvent(name, options) {
      const called = callSite(api.waitForEvent);
      if (gone()) return never();
      checkName(name);
      const type = options?.type;
      const timeoutMs = durationMs(options?.timeout ?? "24 hours");
      if (typeof type !== "string" || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
        throw unsupported("workflow_fatal", `Workflow ${instance.binding}: step.waitForEvent(${JSON.stringify(name)}) was given options the engine cannot read (${JSON.stringify(options)})`);
      }
      const { count, key } = numbered("wait", name);
      const persisted = instance.waits.get(key);
      if (persisted) return replayed(persisted, persisted.event);
      const args = { instance: instance.id, step: name, count, type };
      let deadline = instance.waitDeadlines.get(key);
      if (deadline === undefined) {
        deadline = run.clock.now + timeoutMs;
        instance.waitDeadlines.set(key, deadline);
        point("wait", { ...args, timeout: timeoutMs }, NO_FAULTS, () => ({}), () => ({}), called);
      }
      const buffered = instance.events.findIndex((event) => event.type === type);
      if (buffered >= 0) {
        const [event] = instance.events.splice(buffered, 1);
        instance.waits.set(key, { name, count, event });
        point("event", args, NO_FAULTS, () => event, (taken) => ({ payload: logged(taken.payload) }), called);
        return structuredClone(event);
      }
      if (run.clock.now >= deadline) {
        const error = namedError("WorkflowTimeoutError", `Execution timed out after ${timeoutMs}ms`);
        instance.waits.set(key, { name, count, error: errorFields(error), thrown: error });
        point("wait_timeout", args, NO_FAULTS, () => error, () => ({ error: errorFields(error) }), called);
        throw error;
      }
      // The engine hibernates the instance: nothing after the wait runs until the event or the
      // deadline wakes it, when run() starts again with what the engine persisted.
      instance.status = "waiting";
      instance.waiting = { type, deadline };
      halt();
      return never();
    },
  };
  return api;

  /** @param {string} name @param {number} ms @param {string | undefined} called the Worker's step.sleep call */
  async function sleepFor(name, ms, called) {
    const count = countOf(`sleep:${name}:${ms}`);
    const key = `${name}|${ms}-${count}`;
    let sleep = instance.sleeps.get(key);
    if (sleep?.done) return;
    if (!sleep) {
      const until = run.clock.now + ms;
      point("sleep", { instance: instance.id, step: name, count, ms }, NO_FAULTS, () => ({}), () => ({}), called);
      sleep = { until, done: false };
      instance.sleeps.set(key, sleep);
    }
    if (sleep.until > run.clock.now) await engineWait(run, sleep.until);
    if (gone()) return never();
    sleep.done = true;
  }
}

/**
 * What a restarted run() gets from a step or a wait an earlier run persisted: its error thrown
 * again, else a copy of its answer (`answer`, the step's value or the wait's event).
 * @param {{error?: unknown, thrown?: unknown}} persisted @param {unknown} answer
 */
function replayed(persisted, answer) {
  if ("error" in persisted) throw persisted.thrown;
  return structuredClone(answer);
}

/**
 * A step's config as the engine merges it: the step's fields over the defaults, its retries'
 * over the default retries, field by field; a config the engine rejects is its fatal error.
 * @param {Instance} instance @param {string} name @param {any} stepConfig @param {any} policy
 */
function resolveConfig(instance, name, stepConfig, policy) {
  const defaults = policy.stepRetries;
  const retries = { limit: defaults.limit, delay: defaults.delayMs, backoff: defaults.backoff, ...(stepConfig.retries ?? {}) };
  const config = { retries, timeout: stepConfig.timeout ?? policy.stepTimeoutMs };
  const delay = retries.delay;
  const fine = Number.isInteger(retries.limit) && retries.limit >= 0
    && ["exponential", "linear", "constant"].includes(retries.backoff)
    && (typeof delay === "number" ? delay >= 0 : typeof delay === "string" && Number.isFinite(durationMs(delay)))
    && Number.isFinite(durationMs(config.timeout)) && durationMs(config.timeout) > 0;
  if (!fine) {
    throw unsupported("workflow_fatal", `Workflow ${instance.binding}: the config of step ${JSON.stringify(name)} (${JSON.stringify(stepConfig)}) is one the engine rejects or this model does not read (a delay function)`);
  }
  return config;
}

/**
 * The instances' delivery, as a scheduler source beside the drive's: the instance ready first
 * (created, or crashed and due to restart) starts one attempt, `Workflow:<binding>/<id>#<attempt>`.
 * @param {import("../run.mjs").Run} run @returns {import("../scheduler/scheduler.mjs").Source}
 */
function instanceSource(run) {
  const entries = new Map(workflowBindings(run.config));
  const ready = () => {
    /** @type {Instance | null} */
    let first = null;
    for (const instances of runInstances.get(run)?.values() ?? []) {
      for (const instance of instances.values()) if (instance.ready && (first === null || instance.order < first.order)) first = instance;
    }
    return first;
  };
  /** The waiting instances, and the time the earliest one's wait ends. */
  const waiting = () => [...(runInstances.get(run)?.values() ?? [])].flatMap((instances) => [...instances.values()].filter((instance) => instance.waiting !== null));
  return {
    next: () => {
      // A wait whose deadline has come wakes its instance, which times the wait out.
      for (const instance of waiting()) if (/** @type {{deadline: number}} */ (instance.waiting).deadline <= run.clock.now) wake(run, instance);
      const instance = ready();
      return instance ? `Workflow:${instance.binding}/${instance.id}` : null;
    },
    wake: () => {
      const deadlines = waiting().map((instance) => /** @type {{deadline: number}} */ (instance.waiting).deadline);
      return deadlines.length ? Math.min(...deadlines) : null;
    },
    start: async () => {
      const instance = /** @type {Instance} */ (ready());
      const entry = entries.get(instance.binding);
      instance.ready = false;
      instance.attempts++;
      instance.status = "running";
      const inv = run.startInvocation(`Workflow:${instance.binding}/${instance.id}#${instance.attempts}`);
      /** @type {(value: typeof HALTED) => void} */
      let halt = () => {};
      const halted = new Promise((resolve) => { halt = resolve; });
      const stop = () => {
        instance.halted = instance.waiting === null;
        halt(HALTED);
      };
      /** @type {Promise<unknown>} */
      let promise;
      try {
        const ctx = { waitUntil: () => { throw unsupported("binding_not_modelled", `Workflow ${instance.binding}: ctx.waitUntil() in a Workflow is not modelled`); }, passThroughOnException: () => {} };
        // The Worker's class, or a callee Worker's (its alias) from the callee's module with the callee's env.
        const own = run.classOf(entry.className, inv);
        const workflow = construct(own.module, own.className, ctx, own.env);
        const event = makeEvent(run, instance, entry);
        promise = Promise.race([Promise.resolve(workflow.run(event, makeStep(run, inv, instance, entry, stop))), halted]);
      } catch (error) {
        if (error instanceof UserFacingError) throw error;
        promise = Promise.reject(error);
      }
      const outcome = await run.scheduler.settle(inv, promise);
      run.endInvocation(inv);
      if (outcome.kind === "unsupported" || run.stopped) return true;
      if (outcome.kind === "returned" && outcome.value === HALTED) return false;
      run.recordOutcome(inv, "workflow", outcome);
      if (outcome.kind === "returned") {
        if (!plainData(outcome.value)) {
          notPlain(run, `Workflow ${instance.binding}: run() of instance ${instance.id} returned something that is not plain data`);
          return true;
        }
        instance.status = "complete";
        instance.output = logged(outcome.value);
      } else if (outcome.kind === "threw") {
        instance.status = "errored";
        instance.error = errorFields(outcome.error);
      } else {
        // A crash: the engine restarts the instance, re-running run() with what it persisted.
        instance.ready = true;
        instance.order = nextOrder(run);
      }
      return false;
    },
  };
}

/**
 * The event run() receives: the payload, the instance's creation time and id, and the
 * Workflow's name from the config (reading it without one is UNSUPPORTED).
 * @param {import("../run.mjs").Run} run @param {Instance} instance @param {any} entry
 */
function makeEvent(run, instance, entry) {
  const event = { payload: structuredClone(instance.params), timestamp: new Date(instance.created), instanceId: instance.id };
  Object.defineProperty(event, "workflowName", {
    enumerable: true,
    get() {
      if (typeof entry.workflowName === "string") return entry.workflowName;
      throw unsupported("binding_not_modelled", `Workflow ${instance.binding}: event.workflowName was read, but the config's workflows entry gives no name`);
    },
  });
  void run;
  return event;
}

/** @type {import("./record.mjs").BindingRecord} */
export const workflow = {
  kind: KIND,
  standsIn: true,
  names: workflowBindings,
  proxy: (run, inv, name, _real, entry) => makeBinding(run, inv, name, entry),
  events: (run) => instanceSource(run),
  async reset() {
    // Instances live on the run: every run starts with none.
  },
  async snapshot(owned, run) {
    /** @type {{target: string, table: string, rows: unknown[]}[]} */
    const snapshots = [];
    for (const [name] of [...owned].sort(([a], [b]) => compareText(a, b))) {
      const instances = run ? [...instancesOf(run, name).values()].sort((a, b) => compareText(a.id, b.id)) : [];
      snapshots.push({
        target: `Workflow:${name}`,
        table: "instances",
        rows: instances.map((instance) => ({
          id: instance.id, status: instance.status, params: logged(instance.params),
          ...(instance.output !== undefined ? { output: instance.output } : {}),
          ...(instance.error !== undefined ? { error: instance.error } : {}),
        })),
      });
      snapshots.push({
        target: `Workflow:${name}`,
        table: "steps",
        rows: instances.flatMap((instance) => [
          ...[...instance.steps.values()].map((step) => ({
            instance: instance.id, step: step.name, count: step.count,
            ...("error" in step ? { error: step.error } : { value: logged(step.value) }),
          })),
          ...[...instance.waits.values()].map((wait) => ({
            instance: instance.id, step: wait.name, count: wait.count, wait: true,
            ...(wait.event ? { value: logged(wait.event.payload) } : { error: wait.error }),
          })),
        ]),
      });
    }
    return snapshots;
  },
};
