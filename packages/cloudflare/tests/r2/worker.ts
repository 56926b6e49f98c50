// Stores each message's upload under uploads/<id>, reads it and the bucket back, and drops
// the scratch object; a message with archive: true touches ARCHIVE, which no setup resets.

interface Env {
  BUCKET: R2Bucket;
  ARCHIVE: R2Bucket;
}

type Upload = { id: string; text: string; archive?: boolean };

export default {
  async queue(batch: MessageBatch<Upload>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      const { id, text } = message.body;
      if (message.body.archive) await env.ARCHIVE.head(id);
      const stored = await env.BUCKET.put(`uploads/${id}`, text, { customMetadata: { id } });
      const head = await env.BUCKET.head(`uploads/${id}`);
      const got = await env.BUCKET.get(`uploads/${id}`);
      if (!stored || !head || !got || (await got.text()) !== text || head.version !== stored.version) throw new Error("read back wrong");
      await env.BUCKET.list({ prefix: "uploads/" });
      await env.BUCKET.delete("scratch");
      message.ack();
    }
  },
};
