// @ts-check
/**
 * The raw side of the differential runner: the Worker's queue handler called directly on
 * the real, unproxied bindings, with no faults, in the same isolate as the proxied runs.
 *
 * What a proxied run sees through Eutaxy's binding proxies, this side sees as workerd hands
 * it over: `env.DB` is the real D1Database, the batch is a plain MessageBatch whose ack()
 * and retry() only note the decision here. Nothing of the proxy code (effects, plan,
 * settle, virtual globals, d1 proxy, queue drive) is used, so a bug in any of it shows up
 * as a difference from this side. Shared on purpose, because they are the reference both
 * sides are compared under rather than something under test:
 *   - the D1 reset before the run and the snapshot after it (d1.mjs's resetD1/snapshotD1),
 *     so the two final tables are read the same way;
 *   - the redelivery rule: the request carries `redelivery`, a table Python computed with
 *     core's `may_redeliver` (entry `i` says whether a message not handled after `i + 1`
 *     deliveries is delivered again), so this side holds no copy of the rule;
 *   - the reading of the queue semantics (first ack/retry per message wins, an undecided
 *     message is acked when the handler returns, every message not acked is redelivered or
 *     dead-lettered when it throws), written here again rather than imported.
 *
 * The raw side runs on the isolate's own clock and randomness (that is what "raw" means),
 * so a Worker whose tables depend on time or random values is outside what it compares.
 *
 * Request (POST /raw on the control entrypoint; the host's `raw_run` op):
 *   {"protocol": 1, "scenario": {... "drive": {"kind": "queue", ...}}, "redelivery": [true, true, false]}
 * Answer:
 *   {"protocol": 1, "attempts": [Attempt...], "snapshots": [{target, table, rows}],
 *    "end": {"kind": "completed"} | {"kind": "hung", "detail"}}
 *   Attempt: {invocation, messages: [id...], outcome: "returned" | "threw",
 *             decisions: [{messageId, op: "ack" | "retry", implicit}],
 *             redelivered: [id...], deadLettered: [{messageId, attempts}]}
 */

import { active } from "./active.mjs";
import { resetD1, snapshotD1 } from "./d1.mjs";
import { originals, realTimer } from "./patch.mjs";

export const RAW_PROTOCOL = 1;

/** The control binding the host adds (run.mjs's CONFIG_BINDING); never shown to the Worker. */
const CONFIG_BINDING = "__EUTAXY_CONFIG";

/** Real time one raw attempt may take when the scenario names no budget. */
const DEFAULT_BUDGET_MS = 10000;

/** A request the user (or the caller) must fix. */
export class RawRequestError extends Error {
  name = "RawRequestError";
}

/**
 * The queue handler as workerd calls it: a method of the default export with the export as
 * `this`, or a WorkerEntrypoint class constructed per invocation.
 * @param {any} userModule
 */
function queueHandler(userModule) {
  const exported = userModule.default;
  if (typeof exported === "function" && typeof exported.prototype?.queue === "function") {
    return (/** @type {unknown} */ batch, /** @type {any} */ env, /** @type {any} */ ctx) => new exported(ctx, env).queue(batch);
  }
  if (exported && typeof exported.queue === "function") {
    return (/** @type {unknown} */ batch, /** @type {any} */ env, /** @type {any} */ ctx) => exported.queue(batch, env, ctx);
  }
  throw new RawRequestError("the Worker's default export has no queue() handler");
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

/**
 * Perform one raw run.
 * @param {any} request @param {{d1?: Record<string, {schema: string[]}>}} config
 * @param {Record<string, any>} realEnv @param {any} userModule
 */
export async function rawRun(request, config, realEnv, userModule) {
  if (request?.protocol !== RAW_PROTOCOL) throw new Error(`raw: protocol version ${request?.protocol}, expected ${RAW_PROTOCOL}`);
  if (active.run) throw new Error("raw: a proxied run is in progress in this isolate");
  const scenario = request.scenario ?? {};
  const drive = scenario.drive ?? {};
  if (drive.kind !== "queue") throw new RawRequestError(`raw: the ${JSON.stringify(drive.kind)} drive has no raw side yet (queue only)`);
  const redelivery = request.redelivery;
  if (!Array.isArray(redelivery) || !redelivery.every((entry) => typeof entry === "boolean")) {
    throw new Error("raw: the request must carry `redelivery`, core's may_redeliver for attempts 1, 2, ...");
  }
  const handler = queueHandler(userModule);
  const budget = scenario.bounds?.budgetMs;
  const budgetMs = Number.isFinite(budget) && budget > 0 ? budget : DEFAULT_BUDGET_MS;
  const batchSize = Math.max(1, Number.isInteger(drive.batchSize) ? drive.batchSize : 1);

  for (const [name, { schema }] of Object.entries(config.d1 ?? {})) await resetD1(name, realEnv[name], schema);

  /** @type {Record<string, unknown>} */
  const env = {};
  for (const [name, value] of Object.entries(realEnv)) if (name !== CONFIG_BINDING) env[name] = value;

  /** @type {{id: string, body: unknown, attempts: number}[]} */
  const pending = (drive.events ?? []).map((/** @type {any} */ event, /** @type {number} */ index) => ({
    id: String(event.id ?? `msg-${index + 1}`), body: event.body, attempts: 0,
  }));
  /** @type {object[]} */
  const attempts = [];
  /** @type {{kind: string, detail?: string}} */
  let end = { kind: "completed" };
  // Each delivery ends with every message in it acked, requeued or dead-lettered, and the
  // table bounds the requeues, so this many deliveries always suffice.
  const maxDeliveries = pending.length * (redelivery.length + 1);
  for (let delivery = 0; delivery < maxDeliveries && pending.length; delivery++) {
    const items = pending.splice(0, batchSize);
    for (const item of items) item.attempts++;
    /** @type {Map<string, "ack" | "retry">} */
    const decided = new Map();
    /** @type {{messageId: string, op: string, implicit: boolean}[]} */
    const decisions = [];
    const decide = (/** @type {{id: string}} */ item, /** @type {"ack" | "retry"} */ op, implicit = false) => {
      if (decided.has(item.id)) return;
      decided.set(item.id, op);
      decisions.push({ messageId: item.id, op, implicit });
    };
    const timestamp = new originals.Date();
    const messages = items.map((item) => Object.freeze({
      id: item.id, timestamp, body: cloneBody(item.body), attempts: item.attempts,
      ack: () => decide(item, "ack"),
      retry: (/** @type {unknown} */ _options) => decide(item, "retry"),
    }));
    const batch = Object.freeze({
      queue: drive.name,
      messages: Object.freeze(messages),
      ackAll: () => { for (const item of items) decide(item, "ack"); },
      retryAll: (/** @type {unknown} */ _options) => { for (const item of items) decide(item, "retry"); },
    });
    /** @type {Promise<unknown>[]} */
    const background = [];
    const ctx = {
      waitUntil: (/** @type {unknown} */ promise) => { background.push(Promise.resolve(promise)); },
      passThroughOnException: () => {},
      props: {},
    };
    const invocation = `${items[0].id}#${items[0].attempts}`;
    const outcome = await within(Promise.resolve().then(() => handler(batch, env, ctx)), budgetMs);
    if (outcome.kind === "hung") {
      end = { kind: "hung", detail: `raw attempt ${invocation} did not finish within ${budgetMs} ms` };
      break;
    }
    if (outcome.kind === "threw") console.error(`eutaxy raw: ${invocation}: the queue handler threw:`, outcome.error);
    if (outcome.kind === "returned") {
      for (const item of items) decide(item, "ack", true);
      if (background.length && (await within(Promise.allSettled(background), budgetMs)).kind === "hung") {
        end = { kind: "hung", detail: `raw attempt ${invocation}: waitUntil work did not finish within ${budgetMs} ms` };
        break;
      }
    }
    /** @type {string[]} */
    const redelivered = [];
    /** @type {{messageId: string, attempts: number}[]} */
    const deadLettered = [];
    for (const item of items) {
      if (decided.get(item.id) === "ack") continue;
      if (redelivery[item.attempts - 1] === true) {
        pending.push(item);
        redelivered.push(item.id);
      } else {
        deadLettered.push({ messageId: item.id, attempts: item.attempts });
      }
    }
    attempts.push({ invocation, messages: items.map((item) => item.id), outcome: outcome.kind, decisions, redelivered, deadLettered });
  }

  /** @type {{target: string, table: string, rows: unknown[]}[]} */
  const snapshots = [];
  if (end.kind === "completed") {
    for (const name of Object.keys(config.d1 ?? {}).sort()) {
      for (const { table, rows } of await snapshotD1(name, realEnv[name])) snapshots.push({ target: `D1:${name}`, table, rows });
    }
  }
  return { protocol: RAW_PROTOCOL, attempts, snapshots, end };
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
