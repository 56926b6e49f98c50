// @ts-check
/**
 * The queue drive: delivering a scenario's messages to the Worker's `queue()` handler.
 *
 * Each queue the Worker consumes is one `ConsumedQueue` per run (`consumedQueues`): the
 * driven queue's messages enter it at the start, and a message the Worker produces onto it
 * (producer.mjs) enters it when sent, due after its delay. The driven queue is the drive's
 * source; the others are the queue consumer record's own events (`undrivenQueues`), so a
 * produced message is delivered later in the run, from whichever queue it joined, by the same
 * code as a driven one.
 *
 * One invocation per delivery attempt, `<message id>#<attempt>` (a batch takes its first
 * message's id), batches of up to the batch size taken in order from the messages waiting
 * and due when the delivery starts (the consumer's `max_batch_timeout` is never waited out:
 * a batch forms from what is waiting). A delivery of two or more may take fewer, the first
 * `k` of them, when the plan's batch decision says so (a short batch, as a batch timeout
 * ending early would deliver; at most the plan's `maxShortBatches` per run, plan.mjs). The batch size is the drive's `batchSize` on the
 * driven queue when the scenario names one, else the consumer's `maxBatchSize` (the config's
 * max_batch_size, else Cloudflare's default 10, resolved in the load message). A redelivered message goes to the back of
 * the list, behind messages already waiting, as a retried message re-enters a real queue. Per message, the first decision wins:
 * `ack()`/`retry()` (and `ackAll()`/`retryAll()`, one point per message they reach) are
 * decision points at `Queue:<name>` (ops `ack`, `retry`; faults crash_before, crash_after),
 * recorded with `result.effective` false when an earlier decision had won. When the handler
 * returns, every undecided message is acked implicitly (an `ack` effect with
 * `args.implicit: true`, no fault point). When it throws or crashes, every message not acked
 * is delivered again while the redelivery rule allows (attempts-1 below both the consumer's
 * max_retries and the scenario's `bounds.maxRedeliveries`, when it sets one). Past max_retries
 * it is dead-lettered (a `dead_letter` effect `{args: {messageId, attempts}}`); stopped by
 * maxRedeliveries alone it is a cut (`run.recordCut`, eutaxy.core.cuts): left undone, neither
 * delivered again nor dead-lettered. An explicit retry() counts the same.
 * A message delivered again is due after its retry delay in virtual time, as Cloudflare
 * documents it (and Miniflare's queue broker does it): the delay its effective `retry()`
 * decision asked for (`retry({delaySeconds})`, `retryAll({delaySeconds})`, recorded in the
 * decision's `args.delaySeconds`), else the consumer's `retry_delay` (`retryDelaySeconds`
 * in the load message, 0 when the config sets none), which also delays a batch whose
 * handler threw or crashed. The run's clock moves there once nothing else can run, so the
 * redelivery's invocation and its effects carry the later virtual time.
 * Work handed to `ctx.waitUntil` runs on after the handler returned or threw, in the same
 * invocation, past the background point (background.mjs: the one point taking cut_off), and
 * never changes the acknowledgement.
 *
 * The drive keeps no defaults: the consumer's `maxRetries`, `retryDelaySeconds` and
 * `maxBatchSize` come resolved in its entry of the load message (`kinds.queue_consumer`, the
 * binding's `settings`: Python's record writes Cloudflare's documented 3 retries, no delay and
 * batches of 10 when the config sets none), with the kind's policy (the ack and retry
 * decisions' ladders, `retryDelaySecondsMax`),
 * `maxRedeliveries` in the plan's bounds (eutaxy.engine.bounds.with_bounds; null when the scenario sets none),
 * and the drive's `batchSize` in the plan's drive
 * (eutaxy.cloudflare.define_scenario writes it: null for the consumer's, else a size the
 * Worker's check keeps within max_batch_size); a plan or config without them is Eutaxy's own
 * bug, an internal error.
 */

import { runBackground, settleHandler } from "./background.mjs";
import { assert } from "./assert.mjs";
import { kindBindings, ladderOf } from "./bindings/policy.mjs";
import { NO_FAULTS, effectPoint } from "./effects.mjs";
import { timedEvents } from "./event_time.mjs";
import { originals, realConsole } from "./patch.mjs";
import { logged } from "./values.mjs";

/**
 * core's redelivery rule (eutaxy.core.faults.redelivery_stop): null when an event not handled
 * after `attempts` deliveries comes again, "dead_letter" when the platform's limit is spent,
 * "cut" when only the scenario's maxRedeliveries (null: none) stops it.
 * @param {number} attempts @param {number} platformLimit @param {number | null} maxRedeliveries
 * @returns {"cut" | "dead_letter" | null}
 */
export function redeliveryStop(attempts, platformLimit, maxRedeliveries) {
  if (attempts - 1 >= platformLimit) return "dead_letter";
  if (maxRedeliveries !== null && attempts - 1 >= maxRedeliveries) return "cut";
  return null;
}

/** core's may_redeliver. @param {number} attempts @param {number} platformLimit @param {number | null} maxRedeliveries */
export function mayRedeliver(attempts, platformLimit, maxRedeliveries) {
  return redeliveryStop(attempts, platformLimit, maxRedeliveries) === null;
}

/**
 * The scenario's maxRedeliveries from the plan's bounds: null when it sets none (each
 * platform limit then counts alone); a plan without the field is an internal error.
 * @param {import("./run.mjs").Run} run @returns {number | null}
 */
export function maxRedeliveriesOf(run) {
  const value = run.scenario.bounds?.maxRedeliveries;
  assert(value !== undefined, "the plan's bounds carry no maxRedeliveries (with_bounds writes it, null when the scenario sets none)");
  if (value === null) return null;
  assert(Number.isInteger(value) && value >= 0, () => `the plan's bounds carry maxRedeliveries ${JSON.stringify(value)}, not a non-negative integer`);
  return value;
}

/** The queue consumer's kind: its entry in the load message's `kinds` (bindings/queue_consumer.mjs). */
export const CONSUMER_KIND = "queue_consumer";

/**
 * @typedef {{id: string, body: unknown, attempts: number, decision: "ack" | "retry" | null, due: number,
 *   retryDelaySeconds: number | null}} Pending
 * `retryDelaySeconds`: the delay the effective retry() of this attempt asked for (null: none).
 */

/**
 * The delay a retry()/retryAll() options object asks for, in seconds: null when it names
 * none; a TypeError's text when it is no whole number of seconds Cloudflare accepts (up to
 * `max`, the policy's `retryDelaySecondsMax`).
 * @param {unknown} options @param {number} max @returns {{delaySeconds: number | null} | {typeError: string}}
 */
export function retryDelayOf(options, max) {
  if (options === undefined || options === null) return { delaySeconds: null };
  if (typeof options !== "object") return { typeError: `retry options must be an object ({delaySeconds}), got ${typeof options}` };
  const delay = /** @type {{delaySeconds?: unknown}} */ (options).delaySeconds;
  if (delay === undefined) return { delaySeconds: null };
  if (typeof delay !== "number" || !Number.isInteger(delay) || delay < 0 || delay > max) {
    return { typeError: `delaySeconds must be a whole number of seconds from 0 to ${max}, got ${JSON.stringify(delay)}` };
  }
  return { delaySeconds: delay };
}

/** Each run's consumed queues, by name (made once per run by `consumedQueues`). @type {WeakMap<object, Map<string, ConsumedQueue>>} */
const RUN_QUEUES = new WeakMap();

/**
 * The run's queues the Worker consumes (the queue consumer kind's bindings, in the config's order), each
 * made once per run: the queue drive delivers its events through one, and a message the
 * Worker produces onto one (bindings/queue_producer.mjs) joins the same queue.
 * @param {import("./run.mjs").Run} run @returns {Map<string, ConsumedQueue>}
 */
export function consumedQueues(run) {
  let queues = RUN_QUEUES.get(run);
  if (!queues) {
    queues = new Map();
    for (const [name, entry] of kindBindings(run.config, CONSUMER_KIND)) queues.set(name, new ConsumedQueue(run, name, entry));
    RUN_QUEUES.set(run, queues);
  }
  return queues;
}

/**
 * The queue consumer record's own events (`events`, bindings/record.mjs): the messages waiting
 * on the queues the Worker consumes that no queue drive delivers (produced onto them during
 * the run), as one scheduler source. The first such queue with a message due starts it (queues
 * in the config's order); `wake` is the earliest time one of their delayed messages is due.
 * @param {import("./run.mjs").Run} run @returns {import("./scheduler/scheduler.mjs").Source}
 */
export function undrivenQueues(run) {
  const queues = () => [...consumedQueues(run).values()].filter((queue) => !queue.driven);
  const ready = () => queues().find((queue) => queue.source.next() !== null) ?? null;
  return {
    next: () => ready()?.source.next() ?? null,
    wake: () => {
      /** @type {number | null} */
      let earliest = null;
      for (const queue of queues()) {
        const wake = queue.source.wake?.() ?? null;
        if (wake !== null && (earliest === null || wake < earliest)) earliest = wake;
      }
      return earliest;
    },
    start: () => {
      const queue = ready();
      assert(queue !== null, "a delivery of a produced message started with none due");
      return queue.source.start();
    },
  };
}

/**
 * One queue the Worker consumes, in one run: the messages waiting (each due from a virtual
 * time on: the drive's at once or at their `atMs`, a produced one after its delivery delay), and the source the
 * run's scheduler starts deliveries from (`source`: the drive's for a driven queue, one of
 * the run's other event sources for the rest).
 */
export class ConsumedQueue {
  /** @param {import("./run.mjs").Run} run @param {string} name @param {any} entry its binding's entry (policy.mjs kindBindings) */
  constructor(run, name, entry) {
    this.run = run;
    this.name = name;
    this.target = `Queue:${name}`;
    /** The binding's entry: its settings and the kind's policy, whose ladders the decisions take. */
    this.entry = entry;
    const maxRetries = entry.settings?.maxRetries;
    assert(Number.isInteger(maxRetries), () => `the load message carries no maxRetries for the queue consumer ${JSON.stringify(name)}`);
    /** @type {number} */
    this.maxRetries = /** @type {number} */ (maxRetries);
    const retryDelaySeconds = entry.settings?.retryDelaySeconds;
    assert(Number.isInteger(retryDelaySeconds), () => `the load message carries no retryDelaySeconds for the queue consumer ${JSON.stringify(name)}`);
    /** The consumer's `retry_delay` in seconds: a redelivery's delay when its retry() asked for none. */
    this.retryDelaySeconds = /** @type {number} */ (retryDelaySeconds);
    /** The scenario's bound on redeliveries, null when it sets none (max_retries alone counts). */
    this.maxRedeliveries = maxRedeliveriesOf(run);
    const maxBatchSize = entry.settings?.maxBatchSize;
    assert(Number.isInteger(maxBatchSize) && maxBatchSize >= 1, () => `the load message carries no maxBatchSize for the queue consumer ${JSON.stringify(name)}`);
    /** Messages per delivery: the consumer's max_batch_size, or the drive's smaller batchSize on a driven queue. */
    this.batchSize = /** @type {number} */ (maxBatchSize);
    const retryDelayMax = entry.policy?.retryDelaySecondsMax;
    assert(Number.isInteger(retryDelayMax), "the load message's queue consumer policy carries no retryDelaySecondsMax");
    /** The longest retry delay Cloudflare accepts, in seconds (the policy's). */
    this.retryDelayMax = /** @type {number} */ (retryDelayMax);
    /** True once the queue drive delivers this queue: its source is then the drive's, not the record's. */
    this.driven = false;
    /** @type {Pending[]} waiting messages, in the order they (re-)entered the queue */
    this.pending = [];
    /** Messages that ever entered; each takes at most min(maxRetries, maxRedeliveries) + 1 deliveries. */
    this.added = 0;
    this.deliveries = 0;
    /** @type {((batch: object, env: object, ctx: object) => unknown) | null} the Worker's queue() handler */
    this.handler = null;
    /** @type {import("./scheduler/scheduler.mjs").Source} */
    this.source = {
      next: () => {
        const at = this.ready();
        return at < 0 ? null : this.pending[at].id;
      },
      wake: () => {
        const later = this.pending.filter((item) => item.due > this.run.clock.now).map((item) => item.due);
        return this.deliveries < this.maxDeliveries() && later.length ? Math.min(...later) : null;
      },
      start: () => {
        const first = this.ready();
        assert(first >= 0, () => `a delivery of queue ${this.name} started with no message due`);
        this.deliveries++;
        // Up to batchSize due messages, in queue order: the platform's batch.
        /** @type {number[]} */
        const due = [];
        for (let i = first; i < this.pending.length && due.length < this.batchSize; i++) {
          if (this.pending[i].due <= this.run.clock.now) due.push(i);
        }
        // How many of them this delivery takes: the platform's batch unless the plan takes a
        // short one (a batch decision, within the plan's maxShortBatches; plan.mjs).
        const head = this.pending[due[0]];
        const size = this.run.follower.batchAt(`${head.id}#${head.attempts + 1}`, this.target, due.length);
        assert(Number.isInteger(size) && size >= 1 && size <= due.length, () => `a batch decision took ${size} of ${due.length} messages`);
        const taken = due.slice(0, size);
        const items = taken.map((i) => this.pending[i]);
        for (const i of [...taken].reverse()) this.pending.splice(i, 1);
        return this.deliver(items);
      },
    };
  }

  /** Every delivery attempt ends with each message acked, requeued or dead-lettered, so this bounds the loop. */
  maxDeliveries() {
    return this.added * (Math.min(this.maxRetries, this.maxRedeliveries ?? Infinity) + 1);
  }

  /** The index of the first waiting message that is due, or -1 (none, or the bound is spent). */
  ready() {
    if (this.deliveries >= this.maxDeliveries()) return -1;
    return this.pending.findIndex((item) => item.due <= this.run.clock.now);
  }

  /**
   * A message enters the queue, due from `due` (virtual ms) on.
   * @param {string} id @param {unknown} body @param {number} due
   */
  add(id, body, due) {
    this.pending.push({ id, body, attempts: 0, decision: null, due, retryDelaySeconds: null });
    this.added++;
  }

  /**
   * One delivery attempt of `items`, to its end; true when the run stopped.
   * @param {Pending[]} items
   */
  async deliver(items) {
    const run = this.run;
    const target = this.target;
    const handler = this.handler ?? (this.handler = run.handler("queue"));
    for (const item of items) {
      item.attempts++;
      item.decision = null;
      item.retryDelaySeconds = null;
    }
    const inv = run.startInvocation(`${items[0].id}#${items[0].attempts}`);
    const batch = makeBatch(run, inv, this, items);
    const { outcome, background } = await settleHandler(run, inv, (env, ctx) => handler(batch, env, ctx));
    if (outcome.kind === "unsupported") {
      run.endInvocation(inv);
      return true;
    }
    const record = run.recordOutcome(inv, "queue", outcome);
    // A batch of several names its messages, so the shrinker can remove one from inside it.
    if (record && items.length > 1) record.messages = items.map((item) => item.id);
    if (outcome.kind === "threw") realConsole.error(`eutaxy: ${inv.id}: the queue handler threw:`, outcome.error);
    if (outcome.kind === "returned") {
      for (const item of items) {
        if (item.decision !== null) continue;
        item.decision = "ack";
        effectPoint(run, inv, { kind: "platform", target, op: "ack", args: { messageId: item.id, body: logged(item.body), implicit: true }, ladder: NO_FAULTS, perform: () => ({ effective: true }), summarize: (result) => result });
      }
    }
    // waitUntil work runs on after a handler that returned or threw (a crashed one took it along).
    await runBackground(run, inv, target, background);
    run.endInvocation(inv);
    if (run.stopped) return true;
    // It returned, but asked for every message it was given to come again: it did not work.
    if (record && outcome.kind === "returned" && items.every((item) => item.decision === "retry")) record.retriedAll = true;
    for (const item of items) {
      if (item.decision === "ack") continue;
      const stop = redeliveryStop(item.attempts, this.maxRetries, this.maxRedeliveries);
      if (stop === null) {
        // Due after its retry delay, behind the messages already waiting.
        item.due = run.clock.now + (item.retryDelaySeconds ?? this.retryDelaySeconds) * 1000;
        this.pending.push(item);
      } else if (stop === "cut") {
        // Cloudflare would deliver it again: the bound cut the run here, and the message is left undone.
        run.recordCut({ bound: "maxRedeliveries", where: target, invocation: inv.id, left: [item.id], limit: /** @type {number} */ (this.maxRedeliveries), platformLimit: this.maxRetries });
      } else {
        effectPoint(run, inv, { kind: "platform", target, op: "dead_letter", args: { messageId: item.id, attempts: item.attempts }, ladder: NO_FAULTS, perform: () => ({ deadLettered: true }), summarize: (result) => result });
        if (record) record.deadLettered = (record.deadLettered ?? 0) + 1;
      }
    }
    return false;
  }
}

/**
 * @param {import("./run.mjs").Run} run
 * @param {{kind: "queue", name: string, events: {id: string, body: unknown, atMs?: number}[], batchSize: number | null}} drive
 * @param {(batch: object, env: object, ctx: object) => unknown} handler
 */
export async function driveQueue(run, drive, handler) {
  const queue = consumedQueues(run).get(drive.name);
  assert(queue !== undefined, () => `the load message carries no queue consumer ${JSON.stringify(drive.name)} the plan drives`);
  const batchSize = drive.batchSize;
  assert(batchSize === null || (Number.isInteger(batchSize) && batchSize >= 1), () => `the queue drive's plan carries batchSize ${JSON.stringify(batchSize)}, neither null nor a whole number of at least 1 (define_scenario writes it)`);
  if (batchSize !== null) queue.batchSize = batchSize;
  queue.handler = handler;
  queue.driven = true;
  assert(Array.isArray(drive.events), "the queue drive's plan carries no events list");
  // eutaxy.cloudflare.queue writes every message's id; the drive fills in none. A message
  // with `atMs` is sent then (event_time.mjs); the queue holds them in order of time.
  for (const { event, index, due } of timedEvents(drive.events, run.clock.now)) {
    assert(typeof event?.id === "string", () => `queue message ${index} of the plan carries no id`);
    queue.add(event.id, event.body, due);
  }
  // The scheduler starts deliveries in order: one after another, or while a slot is free.
  await run.scheduler.drive(queue.source);
}

/**
 * @param {import("./run.mjs").Run} run @param {import("./effects.mjs").Invocation} inv
 * @param {ConsumedQueue} consumed @param {Pending[]} items
 */
function makeBatch(run, inv, consumed, items) {
  const { target, name: queue, entry } = consumed;
  const clone = originals.structuredClone ?? ((/** @type {unknown} */ v) => JSON.parse(JSON.stringify(v)));
  const timestamp = run.clock.now;
  /**
   * One ack/retry decision point; a retry's delay, when it names one, is in its args and
   * holds for the redelivery when the decision is the effective one.
   * @param {Pending} item @param {"ack" | "retry"} op @param {number | null} [delaySeconds]
   */
  const decide = (item, op, delaySeconds = null) => effectPoint(run, inv, {
    kind: "decision", target, op,
    args: delaySeconds === null ? { messageId: item.id, body: logged(item.body) } : { messageId: item.id, body: logged(item.body), delaySeconds },
    ladder: ladderOf(entry, op),
    perform: () => {
      const effective = item.decision === null;
      if (effective) {
        item.decision = op;
        item.retryDelaySeconds = delaySeconds;
      }
      return effective;
    },
    summarize: (effective) => ({ effective }),
  });
  /** The delay retry options ask for; a TypeError in the Worker when they ask for one Cloudflare refuses. @param {unknown} options */
  const delayOf = (options) => {
    const read = retryDelayOf(options, consumed.retryDelayMax);
    if ("typeError" in read) throw new TypeError(read.typeError);
    return read.delaySeconds;
  };
  const messages = items.map((item) => Object.freeze({
    id: item.id,
    timestamp: new originals.Date(timestamp),
    body: clone(item.body),
    attempts: item.attempts,
    ack: () => { decide(item, "ack"); },
    retry: (/** @type {unknown} */ options) => { decide(item, "retry", delayOf(options)); },
  }));
  return Object.freeze({
    queue,
    messages: Object.freeze(messages),
    ackAll: () => { for (const item of items) decide(item, "ack"); },
    retryAll: (/** @type {unknown} */ options) => {
      const delaySeconds = delayOf(options);
      for (const item of items) decide(item, "retry", delaySeconds);
    },
  });
}
