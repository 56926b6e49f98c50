// @ts-check
/**
 * The queue consumer record: no env value of its own (a consumer is the Worker's `queue()`
 * handler, not a binding it calls); its events are the queue drive's deliveries (queue.mjs),
 * which read the consumer's `queueConsumers` section entry (`{maxRetries}`) from the config.
 */

import { driveQueue } from "../queue.mjs";

/** @type {import("./record.mjs").BindingRecord} */
export const queueConsumer = {
  kind: "queue_consumer",
  drives: { queue: { method: "queue", drive: driveQueue } },
};
