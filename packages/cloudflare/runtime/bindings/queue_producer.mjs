// @ts-check
/**
 * The queue producer record: a `queueProducers` section entry `{queue, deliveryDelaySeconds}`
 * per binding (host/load.mjs), the proxy of producer.mjs (send and sendBatch each an `io`
 * effect point with the write ladder), standing in for a binding Miniflare is not given (the
 * queue is Eutaxy's model, so no message reaches Miniflare's broker). A message onto a queue
 * the Worker consumes is delivered by the queue consumer record's source later in the run;
 * the snapshot holds what was produced onto every other queue, `Queue:<queue>` `messages`.
 */

import { makeProducer, snapshotProduced } from "../producer.mjs";
import { modelledOnly } from "../unsupported.mjs";

/** @type {import("./record.mjs").BindingRecord} */
export const queueProducer = {
  kind: "queue_producer",
  names: (config) => Object.entries(config.queueProducers ?? {}),
  standsIn: true,
  // Any other property (metrics(), added to Cloudflare's producers) is UNSUPPORTED, not undefined.
  proxy: (run, inv, name, _real, entry) => modelledOnly(makeProducer(run, inv, name, entry), "queue producer", name),
  snapshot: async (owned, run) => snapshotProduced(owned, run),
};
