// @ts-check
/**
 * The queue producer record: its bindings are the queue producer kind's entry in the load
 * message (`kinds.queue_producer`), each with its settings `{queue, deliveryDelaySeconds}` and
 * the kind's policy (the sends' ladders, the longest delay, the largest batch), all Python's
 * (eutaxy.cloudflare.bindings.queue_producer); the proxy of producer.mjs (send and sendBatch
 * each an `io` effect point), standing in for a binding Miniflare is not given (the
 * queue is Eutaxy's model, so no message reaches Miniflare's broker). A message onto a queue
 * the Worker consumes is delivered by the queue consumer record's source later in the run;
 * the snapshot holds what was produced onto every other queue, `Queue:<queue>` `messages`.
 */

import { makeProducer, snapshotProduced } from "../producer.mjs";
import { modelledOnly } from "../unsupported.mjs";

/** @type {import("./record.mjs").BindingRecord} */
export const queueProducer = {
  kind: "queue_producer",
  standsIn: true,
  // Any other property (metrics(), added to Cloudflare's producers) is UNSUPPORTED, not undefined.
  proxy: (run, inv, name, _real, entry) => modelledOnly(makeProducer(run, inv, name, entry), "queue producer", name),
  snapshot: async (owned, run) => snapshotProduced(owned, run),
};
