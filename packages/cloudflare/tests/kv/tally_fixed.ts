// The fixed tally: the count and the messages it counted are one key (the seen list in its
// metadata), written by one put, so a crash leaves both or neither.
interface Env {
  KV: KVNamespace;
}

export default {
  async queue(batch: MessageBatch<{ id: string }>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      const { value, metadata } = await env.KV.getWithMetadata<{ seen: string[] }>("count");
      const seen = metadata?.seen ?? [];
      if (!seen.includes(message.body.id)) {
        await env.KV.put("count", String(Number(value) + 1), { metadata: { seen: [...seen, message.body.id] } });
      }
      message.ack();
    }
  },
};
