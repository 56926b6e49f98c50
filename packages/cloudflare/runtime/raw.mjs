// @ts-check
/**
 * The raw side of the differential runner, inside the isolate: the Worker's queue handler (an
 * rpc drive's method, a cron drive's scheduled()) called directly on the real, unproxied
 * bindings, with no faults, in the same isolate as
 * the proxied runs. One request is one step of the engine's raw loop
 * (`eutaxy.engine.differential.raw_run`), which holds the loop itself: which messages the
 * next attempt delivers, the first decision per message, the implicit ack, and the
 * redelivery rule (core's `may_redeliver`). This file is only how one attempt calls the
 * handler and what its answer holds.
 *
 * What a proxied run sees through Eutaxy's binding proxies, this side sees as workerd hands
 * it over: `env.DB` is the real D1Database, the batch is a plain MessageBatch whose ack()
 * and retry() only note the call here, a tick's controller a plain one whose noRetry() does. Nothing of the proxy code (effects, plan, settle,
 * virtual globals, d1 proxy, queue drive) is used, so a bug in any of it shows up as a
 * difference from this side. Shared on purpose, as the reference both sides are read
 * under: the reset before the run and the snapshot after it (the binding records' own,
 * through bindings/index.mjs as a run does), so the two final tables are read the same way,
 * and which class an rpc drive's call constructs (rpc.mjs `entrypointOf`, a lookup by name).
 *
 * The raw side runs on the isolate's own clock and randomness (that is what "raw" means),
 * so a Worker whose tables depend on them is outside what it compares.
 *
 * Requests (POST /raw on the control entrypoint; the host's `raw_run` op), each with
 * `"protocol": 3`:
 *   {"op": "reset"}                      -> {"protocol": 3}
 *   {"op": "attempt", "queue", "invocation", "messages": [{id, body, attempts}], "hangMs"}
 *                                        -> {"protocol": 3, "outcome": "returned" | "threw" | "hung",
 *                                            "calls": [{messageId, op: "ack" | "retry"}], "detail"?}
 *   {"op": "call", "entrypoint", "invocation", "call": {id, method, args}, "hangMs"}
 *                                        -> {"protocol": 3, "outcome", "calls": [], "answer": {ok, value} | {ok, error}, "detail"?}
 *   {"op": "tick", "invocation", "tick": {id, scheduledTime, cron}, "hangMs"}
 *                                        -> {"protocol": 3, "outcome", "calls": [{messageId: <tick id>, op: "no_retry"}], "detail"?}
 *   {"op": "settle", "waitMs"}           -> {"protocol": 3, "pending": [sentence]}
 *   {"op": "snapshot"}                   -> {"protocol": 3, "snapshots": [{target, table, rows}]}
 *
 * A tick is delivered at once, on the real clock: its `scheduledTime` is the tick's virtual
 * time (the Python side's), which the real `Date.now()` is not.
 *
 * `settle`, after the last attempt, waits at most `waitMs` of real time for what workerd runs
 * on its own to finish: the real timers set since the reset (work after a Durable Object's
 * answer), then, through the binding records' `settleRaw`, a Durable Object's real alarm,
 * which fires on the real clock here; `pending` names what did not.
 */

import { active } from "./active.mjs";
import { resetBindings, settleRawBindings, snapshotBindings } from "./bindings/index.mjs";
import { carriedFields } from "./bindings/service.mjs";
import { originals, realTimer } from "./patch.mjs";
import { entrypointOf } from "./rpc.mjs";
import { loggedOrNull } from "./values.mjs";

export const RAW_PROTOCOL = 3;

/** The control binding the host adds (run.mjs's CONFIG_BINDING); never shown to the Worker. */
const CONFIG_BINDING = "__EUTAXY_CONFIG";

/** A request the user (or the caller) must fix. */
export class RawRequestError extends Error {
  name = "RawRequestError";
}

/**
 * The default export's `method` handler (queue, scheduled) as workerd calls it: a method of the
 * default export with the export as `this`, or a WorkerEntrypoint class constructed per invocation.
 * @param {any} userModule @param {"queue" | "scheduled"} method
 * @returns {(event: unknown, env: any, ctx: any) => unknown}
 */
function exportedHandler(userModule, method) {
  const exported = userModule.default;
  if (typeof exported === "function" && typeof exported.prototype?.[method] === "function") {
    return (event, env, ctx) => new exported(ctx, env)[method](event);
  }
  if (exported && typeof exported[method] === "function") {
    return (event, env, ctx) => exported[method](event, env, ctx);
  }
  throw new RawRequestError(`the Worker's default export has no ${method}() handler`);
}

/** @param {string} what the request, as its errors name it @param {unknown} hangMs */
function checkHangMs(what, hangMs) {
  if (!Number.isInteger(hangMs) || /** @type {number} */ (hangMs) <= 0) throw new Error(`${what}: hangMs must be a positive integer, got ${hangMs}`);
}

/** A plain ExecutionContext: its waitUntil work is kept for the attempt to await (`backgroundHung`). */
function executionContext() {
  /** @type {Promise<unknown>[]} */
  const background = [];
  const ctx = {
    waitUntil: (/** @type {unknown} */ promise) => { background.push(Promise.resolve(promise)); },
    passThroughOnException: () => {},
    props: {},
  };
  return { ctx, background };
}

/**
 * The decisions a raw attempt's handler makes (a message's ack() or retry(), a tick's noRetry()),
 * noted in order until `close()` at the handler's outcome: what it decides after that decides nothing.
 */
function decisionLog() {
  /** @type {{messageId: string, op: "ack" | "retry" | "no_retry"}[]} */
  const calls = [];
  let open = true;
  return {
    calls,
    note: (/** @type {string} */ messageId, /** @type {"ack" | "retry" | "no_retry"} */ op) => { if (open) calls.push({ messageId, op }); },
    close: () => { open = false; },
  };
}

/**
 * One call of the default export's `method` handler with `event`, the real env and a plain
 * ExecutionContext, closing `log` at its outcome, then its waitUntil work awaited (after a
 * return only, unless `afterThrow`), at most `hangMs` each. Answers the outcome and the calls
 * noted until it.
 * @param {{method: "queue" | "scheduled", what: string, invocation: string, hangMs: number, afterThrow: boolean}} how
 * @param {ReturnType<typeof decisionLog>} log @param {unknown} event @param {Record<string, any>} realEnv @param {any} userModule
 */
async function handlerAttempt(how, log, event, realEnv, userModule) {
  const { method, what, invocation, hangMs } = how;
  const handler = exportedHandler(userModule, method);
  const { ctx, background } = executionContext();
  const outcome = await within(Promise.resolve().then(() => handler(event, workerEnv(realEnv), ctx)), hangMs);
  log.close();
  if (outcome.kind === "hung") {
    return { protocol: RAW_PROTOCOL, outcome: "hung", calls: log.calls, detail: `${what} ${invocation} did not finish within ${hangMs} ms` };
  }
  if (outcome.kind === "threw") console.error(`eutaxy raw: ${invocation}: the ${method} handler threw:`, outcome.error);
  if ((outcome.kind === "returned" || how.afterThrow) && (await backgroundHung(background, hangMs))) {
    return { protocol: RAW_PROTOCOL, outcome: "hung", calls: log.calls, detail: `${what} ${invocation}: waitUntil work did not finish within ${hangMs} ms` };
  }
  return { protocol: RAW_PROTOCOL, outcome: outcome.kind, calls: log.calls };
}

/** Whether the waitUntil work did not all finish within `hangMs` of real time. @param {Promise<unknown>[]} background @param {number} hangMs */
async function backgroundHung(background, hangMs) {
  return background.length > 0 && (await within(Promise.allSettled(background), hangMs)).kind === "hung";
}

/**
 * Wait for `promise`, at most `ms` of real time.
 * @param {Promise<unknown>} promise @param {number} ms
 * @returns {Promise<{kind: "returned"} | {kind: "threw", error: unknown} | {kind: "hung"}>}
 */
function within(promise, ms) {
  return new Promise((resolve) => {
    const cancel = realTimer(ms, () => resolve({ kind: "hung" }));
    promise.then(
      () => { cancel(); resolve({ kind: "returned" }); },
      (error) => { cancel(); resolve({ kind: "threw", error }); },
    );
  });
}

/** @param {unknown} value */
function cloneBody(value) {
  return originals.structuredClone ? originals.structuredClone.call(globalThis, value) : JSON.parse(JSON.stringify(value));
}

/** @param {Record<string, any>} realEnv */
function workerEnv(realEnv) {
  /** @type {Record<string, unknown>} */
  const env = {};
  for (const [name, value] of Object.entries(realEnv)) if (name !== CONFIG_BINDING) env[name] = value;
  return env;
}

/**
 * One raw attempt: the queue handler called once with a plain MessageBatch of the messages
 * the request names, then its waitUntil work awaited. Answers the outcome and every ack()
 * and retry() the handler made until then, in order, repeats included (ackAll/retryAll as
 * one call per message); the engine's loop decides which call counts and what is delivered
 * again.
 * @param {any} request @param {Record<string, any>} realEnv @param {any} userModule
 */
async function rawAttempt(request, realEnv, userModule) {
  const { queue, invocation, messages, hangMs } = request;
  if (typeof queue !== "string" || typeof invocation !== "string" || !Array.isArray(messages) || !messages.length) {
    throw new Error("raw attempt: the request must carry queue, invocation and at least one message");
  }
  checkHangMs("raw attempt", hangMs);
  const log = decisionLog();
  const call = log.note;
  const timestamp = new originals.Date();
  const batchMessages = messages.map((/** @type {{id: string, body: unknown, attempts: number}} */ message) => Object.freeze({
    id: message.id, timestamp, body: cloneBody(message.body), attempts: message.attempts,
    ack: () => call(message.id, "ack"),
    retry: (/** @type {unknown} */ _options) => call(message.id, "retry"),
  }));
  const batch = Object.freeze({
    queue,
    messages: Object.freeze(batchMessages),
    ackAll: () => { for (const message of messages) call(message.id, "ack"); },
    retryAll: (/** @type {unknown} */ _options) => { for (const message of messages) call(message.id, "retry"); },
  });
  // A returned handler's undecided messages were acked as it returned, a thrown one's are left
  // to redelivery; its waitUntil work is awaited after a return only.
  return handlerAttempt({ method: "queue", what: "raw attempt", invocation, hangMs, afterThrow: false }, log, batch, realEnv, userModule);
}

/**
 * One raw call of an rpc drive: the entrypoint (the default export, or the named one) constructed
 * with the real env and a plain ExecutionContext, its method called once with the call's
 * arguments, then its waitUntil work awaited. Answers the outcome and the answer as the proxied
 * response point records it: `{ok: true, value}` in the log's encoding, or `{ok: false, error:
 * {name, message}}`; the engine's loop resends a call that threw, as the declared caller does.
 * @param {any} request @param {Record<string, any>} realEnv @param {any} userModule
 */
async function rawCall(request, realEnv, userModule) {
  const { entrypoint, invocation, call, hangMs } = request;
  if (typeof invocation !== "string" || typeof call?.method !== "string" || !Array.isArray(call?.args) || (entrypoint !== null && typeof entrypoint !== "string")) {
    throw new Error("raw call: the request must carry entrypoint (null for the default export), invocation and a call {method, args}");
  }
  checkHangMs("raw call", hangMs);
  let Entrypoint;
  try {
    Entrypoint = entrypointOf(userModule, entrypoint, [call.method]);
  } catch (error) {
    throw new RawRequestError(error instanceof Error ? error.message : String(error));
  }
  const { ctx, background } = executionContext();
  /** @type {{value: unknown} | null} */
  let returned = null;
  const answering = Promise.resolve().then(() => new Entrypoint(ctx, workerEnv(realEnv))[call.method](...cloneBody(call.args)));
  const outcome = await within(answering.then((value) => { returned = { value }; }), hangMs);
  if (outcome.kind === "hung") {
    return { protocol: RAW_PROTOCOL, outcome: "hung", calls: [], detail: `raw call ${invocation} did not finish within ${hangMs} ms` };
  }
  // The call is made in the isolate, not over a binding: its error is answered as RPC would carry
  // it to a caller, by the rule the proxied side's answer uses (bindings/service.mjs `thrownAcross`).
  const answer = outcome.kind === "threw" ? { ok: false, error: carriedFields(outcome.error) } : { ok: true, value: loggedOrNull(/** @type {{value: unknown}} */ (returned).value) };
  if (await backgroundHung(background, hangMs)) {
    return { protocol: RAW_PROTOCOL, outcome: "hung", calls: [], detail: `raw call ${invocation}: waitUntil work did not finish within ${hangMs} ms` };
  }
  return { protocol: RAW_PROTOCOL, outcome: outcome.kind, calls: [], answer };
}

/**
 * One raw attempt of a cron tick: the default export's scheduled() called once with a plain
 * controller (`scheduledTime` the tick's time, `cron` the expression, `noRetry()` only noting the
 * call), the real env and a plain ExecutionContext, then its waitUntil work awaited, as the cron
 * drive runs it whatever the outcome. Answers the outcome and each noRetry() call made until
 * then, as `{messageId: <tick id>, op: "no_retry"}`; the engine's loop decides whether the tick
 * runs again.
 * @param {any} request @param {Record<string, any>} realEnv @param {any} userModule
 */
async function rawTick(request, realEnv, userModule) {
  const { invocation, tick, hangMs } = request;
  if (typeof invocation !== "string" || typeof tick?.id !== "string" || typeof tick?.scheduledTime !== "number" || typeof tick?.cron !== "string") {
    throw new Error("raw tick: the request must carry invocation and a tick {id, scheduledTime, cron}");
  }
  checkHangMs("raw tick", hangMs);
  const log = decisionLog();
  const controller = Object.freeze({
    scheduledTime: tick.scheduledTime,
    cron: tick.cron,
    noRetry: () => log.note(tick.id, "no_retry"),
  });
  return handlerAttempt({ method: "scheduled", what: "raw tick", invocation, hangMs, afterThrow: true }, log, controller, realEnv, userModule);
}

/** Each attempt op's function. */
const ATTEMPTS = { attempt: rawAttempt, call: rawCall, tick: rawTick };

/** How often the raw side's settle looks whether the real timers it waits for have fired. */
const RAW_TIMER_POLL_MS = 10;

/**
 * The real timers set on the raw side (by the Worker or its objects: one isolate, one set of
 * globals) and not yet fired or cleared: the settle waits for them, as workerd keeps an object
 * alive while a timer of its is pending (work after an object's answer). The timer globals
 * are counted from an attempt's start until it has ended and no timer it (or a timer's
 * callback) set is pending, so between raw steps the globals are the isolate's own. An
 * interval stays pending until cleared; the snapshot ends the count.
 */
const rawTimers = {
  /** @type {Set<unknown>} */
  pending: new Set(),
  /** @type {(() => void) | null} puts the real timer globals back */
  undo: null,
  /** True while an attempt runs. */
  attempting: false,

  install() {
    this.attempting = true;
    if (this.undo) return;
    const g = /** @type {any} */ (globalThis);
    const pending = this.pending;
    const saved = { setTimeout: g.setTimeout, clearTimeout: g.clearTimeout, setInterval: g.setInterval, clearInterval: g.clearInterval };
    /** @param {Function} callback @param {unknown} ms @param {unknown[]} args */
    g.setTimeout = (callback, ms, ...args) => {
      /** @type {unknown} */
      let id = null;
      id = saved.setTimeout.call(g, (/** @type {unknown[]} */ ...given) => {
        try {
          return callback(...given);
        } finally {
          pending.delete(id);
          this.release();
        }
      }, ms, ...args);
      pending.add(id);
      return id;
    };
    /** @param {Function} callback @param {unknown} ms @param {unknown[]} args */
    g.setInterval = (callback, ms, ...args) => {
      const id = saved.setInterval.call(g, callback, ms, ...args);
      pending.add(id);
      return id;
    };
    g.clearTimeout = (/** @type {unknown} */ id) => { pending.delete(id); return saved.clearTimeout.call(g, id); };
    g.clearInterval = (/** @type {unknown} */ id) => { pending.delete(id); return saved.clearInterval.call(g, id); };
    this.undo = () => Object.assign(g, saved);
  },

  /** Put the globals back once no attempt runs and nothing counted is pending. */
  release() {
    if (!this.attempting && this.pending.size === 0) this.uninstall();
  },

  uninstall() {
    this.undo?.();
    this.undo = null;
    this.attempting = false;
    this.pending.clear();
  },

  /** Wait, at most `waitMs` of real time, until none is pending; the real time it took. @param {number} waitMs */
  async settle(waitMs) {
    const started = originals.dateNow();
    while (this.pending.size > 0 && originals.dateNow() - started < waitMs) {
      await new Promise((resolve) => realTimer(RAW_TIMER_POLL_MS, () => resolve(undefined)));
    }
    return originals.dateNow() - started;
  },
};

/**
 * Perform one raw request: reset, an attempt (a queue's, a call's, a tick's), settle or snapshot.
 * @param {any} request @param {{d1?: Record<string, {schema: string[]}>}} config
 * @param {Record<string, any>} realEnv @param {any} userModule
 */
export async function rawRun(request, config, realEnv, userModule) {
  if (request?.protocol !== RAW_PROTOCOL) throw new Error(`raw: protocol version ${request?.protocol}, expected ${RAW_PROTOCOL}`);
  if (active.run) throw new Error("raw: a proxied run is in progress in this isolate");
  switch (request.op) {
    case "reset":
      rawTimers.uninstall();
      await resetBindings(config, realEnv);
      return { protocol: RAW_PROTOCOL };
    case "attempt":
    case "call":
    case "tick":
      rawTimers.install();
      try {
        return await ATTEMPTS[/** @type {"attempt" | "call" | "tick"} */ (request.op)](request, realEnv, userModule);
      } finally {
        rawTimers.attempting = false;
        rawTimers.release();
      }
    case "settle": {
      if (!Number.isInteger(request.waitMs) || request.waitMs <= 0) throw new Error(`raw settle: waitMs must be a positive integer, got ${request.waitMs}`);
      const waited = await rawTimers.settle(request.waitMs);
      const timers = rawTimers.pending.size;
      const pending = await settleRawBindings(config, realEnv, Math.max(1, request.waitMs - waited));
      if (timers > 0) pending.unshift(`${timers} real timer(s) the Worker or its objects set still pending after ${request.waitMs} ms of real time`);
      return { protocol: RAW_PROTOCOL, pending };
    }
    case "snapshot":
      rawTimers.uninstall();
      return { protocol: RAW_PROTOCOL, snapshots: await snapshotBindings(config, realEnv) };
    default:
      throw new Error(`raw: unknown op ${JSON.stringify(request.op)}; expected reset, attempt, call, tick, settle or snapshot`);
  }
}

/**
 * The control route: POST /raw. 200 with the raw result, 400 `{error, user: true}` for a
 * request the user must fix, 500 `{error}` for Eutaxy's own failure.
 * @param {Request} request @param {Record<string, any>} env @param {any} userModule
 */
export async function rawControl(request, env, userModule) {
  const json = (/** @type {unknown} */ body, status = 200) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  if (request.method !== "POST") return json({ error: `no control route ${request.method} /raw` }, 404);
  try {
    return json(await rawRun(await request.json(), env[CONFIG_BINDING] ?? {}, env, userModule));
  } catch (error) {
    const user = error instanceof RawRequestError;
    const message = error instanceof Error ? (user ? error.message : `${error.name}: ${error.message}\n${error.stack ?? ""}`) : String(error);
    if (!user) console.error("eutaxy: the raw run failed inside the isolate:", message);
    return json({ error: message, user }, user ? 400 : 500);
  }
}
