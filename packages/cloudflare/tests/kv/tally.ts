// A tally kept in KV, one message counted once: the consumer marks the message seen in one
// key and counts it in another. A crash between the two (or before the count) loses the
// count for good, since the redelivery finds the mark and skips the message (the bug).
interface Env {
  KV: KVNamespace;
}

export default {
  async queue(batch: MessageBatch<{ id: string }>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      const mark = `seen:${message.body.id}`;
      if ((await env.KV.get(mark)) === null) {
        await env.KV.put(mark, "1");
        const count = Number(await env.KV.get("count"));
        await env.KV.put("count", String(count + 1));
      }
      message.ack();
    }
  },
};
