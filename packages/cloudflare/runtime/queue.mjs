// @ts-check
/**
 * The queue drive: delivering a scenario's messages to the Worker's `queue()` handler.
 *
 * One invocation per delivery attempt, `<message id>#<attempt>` (a batch takes its first
 * message's id), batches of up to `drive.batchSize` messages taken in order from the
 * pending list. A redelivered message goes to the back of the list, behind messages already
 * waiting, as a retried message re-enters a real queue. Per message, the first decision wins:
 * `ack()`/`retry()` (and `ackAll()`/`retryAll()`, one point per message they reach) are
 * decision points at `Queue:<name>` (ops `ack`, `retry`; faults crash_before, crash_after),
 * recorded with `result.effective` false when an earlier decision had won. When the handler
 * returns, every undecided message is acked implicitly (an `ack` effect with
 * `args.implicit: true`, no fault point). When it throws or crashes, every message not acked
 * is delivered again while the redelivery rule allows (attempts-1 below both the consumer's
 * max_retries and the scenario's `bounds.maxRedeliveries`), else dead-lettered
 * (a `dead_letter` effect `{args: {messageId, attempts}}`); an explicit retry() counts the same.
 * Work handed to `ctx.waitUntil` runs on after the handler returned or threw, in the same
 * invocation, past the background point (background.mjs: the one point taking cut_off), and
 * never changes the acknowledgement.
 *
 * The drive keeps no defaults: the consumer's `maxRetries` comes resolved in the load
 * message (the wrangler reader writes Cloudflare's documented 3 when the config sets none),
 * `maxRedeliveries` in the plan's bounds (eutaxy.engine.bounds.with_bounds) and the drive's
 * `batchSize` in the plan's drive (eutaxy.cloudflare.define_scenario writes it, 1 unless the
 * scenario asks for more, and the Worker's check keeps it within the consumer's
 * max_batch_size); a plan or config without them is Eutaxy's own bug, an internal error.
 */

import { Background, makeContext, runBackground } from "./background.mjs";
import { assert } from "./assert.mjs";
import { DECISION_FAULTS, NO_FAULTS, effectPoint } from "./effects.mjs";
import { originals, realConsole } from "./patch.mjs";

/** core's redelivery rule (eutaxy.core.faults.may_redeliver). @param {number} attempts @param {number} platformLimit @param {number} maxRedeliveries */
export function mayRedeliver(attempts, platformLimit, maxRedeliveries) {
  return attempts - 1 < platformLimit && attempts - 1 < maxRedeliveries;
}

/**
 * @typedef {{id: string, body: unknown, attempts: number, decision: "ack" | "retry" | null}} Pending
 */

/**
 * @param {import("./run.mjs").Run} run
 * @param {{kind: "queue", name: string, events: {id: string, body: unknown}[], batchSize: number}} drive
 * @param {(batch: object, env: object, ctx: object) => unknown} handler
 */
export async function driveQueue(run, drive, handler) {
  const name = drive.name;
  const target = `Queue:${name}`;
  const maxRetries = run.config.queueConsumers?.[name]?.maxRetries;
  assert(Number.isInteger(maxRetries), () => `the load message carries no maxRetries for the queue consumer ${JSON.stringify(name)} the plan drives`);
  const maxRedeliveries = run.scenario.bounds?.maxRedeliveries;
  assert(Number.isInteger(maxRedeliveries), "the plan's bounds carry no maxRedeliveries (with_bounds writes it)");
  const batchSize = drive.batchSize;
  assert(Number.isInteger(batchSize) && batchSize >= 1, () => `the queue drive's plan carries batchSize ${JSON.stringify(batchSize)}, not a whole number of at least 1 (define_scenario writes it)`);
  /** @type {Pending[]} */
  assert(Array.isArray(drive.events), "the queue drive's plan carries no events list");
  // eutaxy.cloudflare.queue writes every message's id; the drive fills in none.
  const pending = drive.events.map((event, index) => {
    assert(typeof event?.id === "string", () => `queue message ${index} of the plan carries no id`);
    return { id: event.id, body: event.body, attempts: 0, decision: null };
  });
  // Every delivery attempt ends with each message acked, requeued or dead-lettered, so the
  // loop ends after at most events * (maxRedeliveries + 1) deliveries.
  const maxDeliveries = pending.length * (Math.min(maxRetries, maxRedeliveries) + 1);
  /**
   * One delivery attempt of `items`, to its end; true when the run stopped.
   * @param {Pending[]} items
   */
  const deliver = async (items) => {
    for (const item of items) {
      item.attempts++;
      item.decision = null;
    }
    const inv = run.startInvocation(`${items[0].id}#${items[0].attempts}`);
    const batch = makeBatch(run, inv, target, name, items);
    const background = new Background();
    const ctx = makeContext(background);
    const env = run.envFor(inv);
    /** @type {Promise<unknown>} */
    let promise;
    try {
      promise = Promise.resolve(handler(batch, env, ctx));
    } catch (error) {
      promise = Promise.reject(error);
    }
    const outcome = await run.scheduler.settleAtReturn(inv, promise);
    if (outcome.kind === "unsupported") {
      run.endInvocation(inv);
      return true;
    }
    if (outcome.kind === "threw") realConsole.error(`eutaxy: ${inv.id}: the queue handler threw:`, outcome.error);
    if (outcome.kind === "returned") {
      for (const item of items) {
        if (item.decision !== null) continue;
        item.decision = "ack";
        effectPoint(run, inv, { kind: "platform", target, op: "ack", args: { messageId: item.id, body: item.body, implicit: true }, ladder: NO_FAULTS, perform: () => ({ effective: true }), summarize: (result) => result });
      }
    }
    // waitUntil work runs on after a handler that returned or threw (a crashed one took it along).
    await runBackground(run, inv, target, background);
    run.endInvocation(inv);
    if (run.stopped) return true;
    for (const item of items) {
      if (item.decision === "ack") continue;
      if (mayRedeliver(item.attempts, maxRetries, maxRedeliveries)) pending.push(item);
      else effectPoint(run, inv, { kind: "platform", target, op: "dead_letter", args: { messageId: item.id, attempts: item.attempts }, ladder: NO_FAULTS, perform: () => ({ deadLettered: true }), summarize: (result) => result });
    }
    return false;
  };
  let deliveries = 0;
  // The scheduler starts deliveries in order: one after another, or while a slot is free.
  await run.scheduler.drive({
    next: () => (deliveries < maxDeliveries && pending.length ? pending[0].id : null),
    start: () => {
      deliveries++;
      return deliver(pending.splice(0, batchSize));
    },
  });
}

/**
 * @param {import("./run.mjs").Run} run @param {import("./effects.mjs").Invocation} inv
 * @param {string} target @param {string} queue @param {Pending[]} items
 */
function makeBatch(run, inv, target, queue, items) {
  const clone = originals.structuredClone ?? ((/** @type {unknown} */ v) => JSON.parse(JSON.stringify(v)));
  const timestamp = run.clock.now;
  /** @param {Pending} item @param {"ack" | "retry"} op */
  const decide = (item, op) => effectPoint(run, inv, {
    kind: "decision", target, op, args: { messageId: item.id, body: item.body }, ladder: DECISION_FAULTS,
    perform: () => {
      const effective = item.decision === null;
      if (effective) item.decision = op;
      return effective;
    },
    summarize: (effective) => ({ effective }),
  });
  const messages = items.map((item) => Object.freeze({
    id: item.id,
    timestamp: new originals.Date(timestamp),
    body: clone(item.body),
    attempts: item.attempts,
    ack: () => { decide(item, "ack"); },
    retry: (/** @type {unknown} */ _options) => { decide(item, "retry"); },
  }));
  return Object.freeze({
    queue,
    messages: Object.freeze(messages),
    ackAll: () => { for (const item of items) decide(item, "ack"); },
    retryAll: (/** @type {unknown} */ _options) => { for (const item of items) decide(item, "retry"); },
  });
}
