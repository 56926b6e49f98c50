// @ts-check
/**
 * The queue consumer record: no env value of its own (a consumer is the Worker's `queue()`
 * handler, not a binding it calls); its events are the queue drive's deliveries (queue.mjs),
 * which read the consumer's `queueConsumers` section entry (`{maxRetries, retryDelaySeconds, maxBatchSize}`) from the config.
 * A message the Worker produces onto a queue it consumes (bindings/queue_producer.mjs) joins
 * that queue and is delivered later in the run: by the queue drive when it drives that queue,
 * else as this record's own events (queue.mjs `undrivenQueues`).
 */

import { driveQueue, undrivenQueues } from "../queue.mjs";

/** @type {import("./record.mjs").BindingRecord} */
export const queueConsumer = {
  kind: "queue_consumer",
  drives: { queue: { method: "queue", drive: driveQueue } },
  events: (run) => undrivenQueues(run),
};
