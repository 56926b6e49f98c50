// @ts-check
/**
 * The queue consumer record: no env value of its own (a consumer is the Worker's `queue()`
 * handler, not a binding it calls, so it owns no env name); its events are the queue drive's
 * deliveries (queue.mjs), which read each consumed queue's entry in the kind's load-message
 * entry (`kinds.queue_consumer`, by queue): its settings (`{maxRetries, retryDelaySeconds,
 * maxBatchSize}`) and the kind's policy (the ack and retry decisions' ladders, the longest
 * retry delay), all Python's (eutaxy.cloudflare.bindings.queue_consumer).
 * A message the Worker produces onto a queue it consumes (bindings/queue_producer.mjs) joins
 * that queue and is delivered later in the run: by the queue drive when it drives that queue,
 * else as this record's own events (queue.mjs `undrivenQueues`).
 */

import { CONSUMER_KIND, driveQueue, undrivenQueues } from "../queue.mjs";

/** @type {import("./record.mjs").BindingRecord} */
export const queueConsumer = {
  kind: CONSUMER_KIND,
  names: () => [],
  drives: { queue: { method: "queue", drive: driveQueue } },
  events: (run) => undrivenQueues(run),
};
