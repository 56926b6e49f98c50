// @ts-check
/**
 * Queue producers: what `env.<BINDING>.send(body, options)` and `sendBatch(messages, options)`
 * do in a run. The queue is Eutaxy's model, not Miniflare's broker (which would deliver on
 * the real clock, outside the run): no message leaves the isolate.
 *
 * Each call is one `io` effect point at `Queue:<queue>` (the queue's name, not the
 * binding's), op `send` or `sendBatch`, with the write ladder (crash_before, crash_after,
 * ambiguous, error): crash_before and error mean the message was never sent (error throws
 * `injectedError` into the Worker), crash_after and ambiguous that it was sent (ambiguous
 * throws the same error anyway, as a lost connection would). A sendBatch is one point, so
 * its messages are sent all or none. The payload is plain data, written the same every run:
 * `args: {body, contentType?, delaySeconds}` for send, `args: {messages: [{body, contentType?,
 * delaySeconds}]}` for sendBatch (each message's delay resolved: its own, else the call's
 * options, else the producer's `delivery_delay`), `result: {messageIds}`.
 *
 * A message's id is `<invocation>/sent-<n>`, the n-th message that invocation sent (counted
 * when sending performs), so ids depend only on what that invocation did: a schedule keyed by
 * them stays valid when the shrinker removes other events, and the input event it descends
 * from is the text before the first `#`.
 *
 * Where it goes: onto a queue the Worker consumes (the queue consumer kind's), the message joins that
 * queue (queue.mjs `ConsumedQueue`) and is delivered to the Worker's queue() handler later in
 * the run, due once its delay has passed in virtual time, with its own faults, redeliveries
 * and dead letter. Onto any other queue it is kept for the run's snapshot: one table per
 * queue, `Queue:<queue>` `messages`, rows `{messageId, body, contentType?, delaySeconds}`.
 *
 * Bodies must be plain data (values.mjs `plainData`: JSON's values, undefined, bigints,
 * dates, bytes, maps, sets and errors, as structured clone carries them), recorded in the
 * log's encoding and delivered to a consumer as a structured clone: `json` takes the body
 * through JSON as the runtime does; `text` must be a string (else a TypeError, as the runtime
 * throws); without a content type, or with `v8`, a body that is not plain data (a function, a
 * class instance, a stream) and any `bytes` message make the run UNSUPPORTED
 * (`message_not_plain`). More messages in one run than the plan's
 * `bounds.producedMessagesMax` make it UNSUPPORTED (`produced_message_limit`), never dropped.
 */

import { assert } from "./assert.mjs";
import { ladderOf } from "./bindings/policy.mjs";
import { effectPoint, never } from "./effects.mjs";
import { consumedQueues } from "./queue.mjs";
import { logged, read } from "./values.mjs";

/** The content types the Queues API accepts. */
const CONTENT_TYPES = new Set(["json", "text", "bytes", "v8"]);

/**
 * A producer binding's entry (bindings/policy.mjs kindBindings): its settings, and the kind's
 * policy (`ladders` of send and sendBatch, `delaySecondsMax`: the longest delivery delay
 * Cloudflare accepts, `batchMessagesMax`: the most messages one sendBatch may carry).
 * @typedef {{settings: {queue: string, deliveryDelaySeconds: number}, policy: {ladders: Record<string, string[]>, delaySecondsMax: number, batchMessagesMax: number}}} ProducerEntry
 * @typedef {{body: unknown, contentType?: string, delaySeconds: number}} Message
 * @typedef {{produced: number, sentBy: Map<string, number>, outbox: Map<string, object[]>}} RunState
 */

/** Each run's producer state (made at its first use). @type {WeakMap<object, RunState>} */
const RUN_STATE = new WeakMap();

/** @param {import("./run.mjs").Run} run @returns {RunState} */
function stateOf(run) {
  let state = RUN_STATE.get(run);
  if (!state) {
    state = { produced: 0, sentBy: new Map(), outbox: new Map() };
    RUN_STATE.set(run, state);
  }
  return state;
}

/** The Error the Worker sees for `error` and `ambiguous`. @param {string} fault */
function injectedError(fault) {
  return fault === "ambiguous"
    ? new Error("Queue send failed: Network connection lost. (eutaxy: ambiguous outcome injected; the message was sent)")
    : new Error("Queue send failed: internal error (eutaxy: error injected; the message was not sent)");
}

/**
 * One message as the producer sends it, or why it cannot be: `{message}`, `{typeError}` (the
 * runtime's own refusal, thrown to the Worker) or `{unsupported}` (a body the log cannot hold).
 * @param {unknown} body @param {any} options the message's own options @param {any} callOptions the call's (sendBatch)
 * @param {ProducerEntry} entry
 * @returns {{message: Message} | {typeError: string} | {unsupported: string}}
 */
export function messageOf(body, options, callOptions, entry) {
  const contentType = options?.contentType;
  if (contentType !== undefined && !CONTENT_TYPES.has(contentType)) {
    return { typeError: `Unknown content type ${JSON.stringify(contentType)}; expected one of json, text, bytes, v8` };
  }
  const delay = options?.delaySeconds ?? callOptions?.delaySeconds ?? entry.settings.deliveryDelaySeconds;
  const max = entry.policy.delaySecondsMax;
  if (!Number.isInteger(delay) || delay < 0 || delay > max) {
    return { typeError: `delaySeconds must be a whole number of seconds from 0 to ${max}, got ${JSON.stringify(delay)}` };
  }
  /** @type {unknown} */
  let sent = body;
  if (contentType === "text") {
    if (typeof body !== "string") return { typeError: `a message with contentType "text" must have a string body, got ${typeof body}` };
  } else if (contentType === "json") {
    let text;
    try {
      text = JSON.stringify(body);
    } catch (error) {
      return { typeError: `a message with contentType "json" must be JSON: ${/** @type {Error} */ (error).message}` };
    }
    if (text === undefined) return { typeError: `a message with contentType "json" must be JSON, got ${typeof body}` };
    sent = JSON.parse(text);
  } else if (contentType === "bytes") {
    return { unsupported: "a message with contentType \"bytes\" (not modelled)" };
  } else {
    const reading = read(body, "body");
    if (!reading.ok) return { unsupported: `a message body that is not plain data (${reading.why}); send data, or give contentType "json"` };
  }
  /** @type {Message} */
  const message = { body: sent, delaySeconds: delay };
  if (contentType !== undefined) message.contentType = contentType;
  return { message };
}

/** A message as the log holds it: its body in the log's encoding (values.mjs). @param {Message} message */
function loggedMessage(message) {
  return { ...message, body: logged(message.body) };
}

/**
 * The producer binding one invocation sees.
 * @param {import("./run.mjs").Run} run @param {import("./effects.mjs").Invocation} inv
 * @param {string} binding @param {ProducerEntry} entry
 */
export function makeProducer(run, inv, binding, entry) {
  assert(typeof entry?.settings?.queue === "string", () => `the load message carries no queue for the producer binding ${binding}`);
  assert(Number.isInteger(entry.settings.deliveryDelaySeconds), () => `the load message carries no deliveryDelaySeconds for the producer binding ${binding}`);
  assert(Number.isInteger(entry.policy?.delaySecondsMax) && Number.isInteger(entry.policy?.batchMessagesMax), () => `the load message's queue producer policy carries no delaySecondsMax or batchMessagesMax`);
  const queue = entry.settings.queue;
  const target = `Queue:${queue}`;
  /**
   * @param {"send" | "sendBatch"} op @param {({message: Message} | {typeError: string} | {unsupported: string})[]} made
   */
  const produce = (op, made) => {
    for (const item of made) {
      if ("typeError" in item) return Promise.reject(new TypeError(item.typeError));
      if ("unsupported" in item) {
        run.markUnsupported("message_not_plain", `${inv.id} sent ${item.unsupported} to queue ${queue} through ${binding}.${op}()`);
        return never();
      }
    }
    const messages = made.map((item) => /** @type {{message: Message}} */ (item).message);
    const args = op === "send" ? loggedMessage(messages[0]) : { messages: messages.map(loggedMessage) };
    return effectPoint(run, inv, {
      kind: "io", target, op, args, ladder: ladderOf(entry, op), injectedError,
      perform: async () => send(run, inv, entry, binding, op, messages),
      summarize: (messageIds) => ({ messageIds }),
    }).then(() => undefined);
  };
  return Object.freeze({
    /** @param {unknown} body @param {any} [options] */
    send: (body, options) => produce("send", [messageOf(body, options, undefined, entry)]),
    /** @param {Iterable<any>} batch @param {any} [options] */
    sendBatch: (batch, options) => {
      /** @type {any[]} */
      let items;
      try {
        items = [...batch];
      } catch {
        return Promise.reject(new TypeError("sendBatch takes an iterable of messages ({body, contentType?, delaySeconds?})"));
      }
      const most = entry.policy.batchMessagesMax;
      if (items.length === 0 || items.length > most) {
        return Promise.reject(new TypeError(`sendBatch takes 1 to ${most} messages, got ${items.length}`));
      }
      return produce("sendBatch", items.map((item) => messageOf(item?.body, item, options, entry)));
    },
  });
}

/**
 * Sending, all messages of the call at once: each gets its id, then joins the queue the
 * Worker consumes (due after its delay) or the run's record of the other queue.
 * @param {import("./run.mjs").Run} run @param {import("./effects.mjs").Invocation} inv
 * @param {ProducerEntry} entry @param {string} binding @param {string} op @param {Message[]} messages
 * @returns {string[]} the messages' ids
 */
function send(run, inv, entry, binding, op, messages) {
  const state = stateOf(run);
  const max = run.scenario.bounds?.producedMessagesMax;
  assert(Number.isInteger(max), "the plan's bounds carry no producedMessagesMax (with_bounds writes it)");
  if (state.produced + messages.length > max) {
    const detail = `${inv.id} sent message ${state.produced + messages.length} of the run (${binding}.${op}() to queue ${entry.settings.queue}), beyond bounds.producedMessagesMax (${max}); raise the bound, or check fewer events`;
    run.markUnsupported("produced_message_limit", detail);
    throw new Error(`eutaxy: unsupported: ${detail}`);
  }
  state.produced += messages.length;
  const consumed = consumedQueues(run).get(entry.settings.queue);
  return messages.map((message) => {
    const n = (state.sentBy.get(inv.id) ?? 0) + 1;
    state.sentBy.set(inv.id, n);
    const id = producedMessageId(inv.id, n);
    if (consumed) {
      consumed.add(id, message.body, run.clock.now + message.delaySeconds * 1000);
    } else {
      let rows = state.outbox.get(entry.settings.queue);
      if (!rows) state.outbox.set(entry.settings.queue, (rows = []));
      rows.push({ messageId: id, ...loggedMessage(message) });
    }
    return id;
  });
}

/**
 * The messages produced onto queues the Worker does not consume, one table per queue a
 * producer binding names (empty when nothing was sent), queues in name order.
 * @param {[string, any, ProducerEntry][]} owned @param {import("./run.mjs").Run} [run]
 * @returns {{target: string, table: string, rows: unknown[]}[]}
 */
export function snapshotProduced(owned, run) {
  if (!run) return [];
  const consumed = consumedQueues(run);
  const queues = [...new Set(owned.map(([, , entry]) => entry.settings.queue))].filter((queue) => !consumed.has(queue)).sort();
  const outbox = stateOf(run).outbox;
  return queues.map((queue) => ({ target: `Queue:${queue}`, table: "messages", rows: outbox.get(queue) ?? [] }));
}

/**
 * The id of the `n`-th message (from 1) invocation `invocation` produced: `<invocation>/sent-<n>`.
 * Python reads its input event back (eutaxy.engine.plans.event_of_invocation: the text before
 * the first `#`), held to this by core's vectors/produced_ids.json, which both suites read.
 * @param {string} invocation @param {number} n
 */
export function producedMessageId(invocation, n) {
  return `${invocation}/sent-${n}`;
}
