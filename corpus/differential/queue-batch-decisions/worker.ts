// A consumer of two-message batches whose messages decide in every way a batch
// allows: an explicit ack, no decision (acked when the handler returns), a
// retry, a retryAll() of the whole batch, and a throw after some messages of
// the batch were acked (the rest are redelivered). max_retries is 1, so a
// message that fails twice is dead-lettered. No planted bug: the proxied and
// the raw run must agree on every decision and on the table.

interface Env {
  DB: D1Database;
}

interface Job {
  key: string;
  action: "ack" | "implicit" | "retry-once" | "retry-all-once" | "fail-once" | "fail-always";
}

export default {
  async queue(batch: MessageBatch<Job>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      const { key, action } = message.body;
      await env.DB.prepare("INSERT INTO seen (message_key, attempt) VALUES (?, ?)").bind(key, message.attempts).run();
      if (action === "fail-always" || (action === "fail-once" && message.attempts === 1)) {
        throw new Error(`job ${key} failed on attempt ${message.attempts}`);
      }
      if (action === "retry-all-once" && message.attempts === 1) {
        batch.retryAll();
        return;
      }
      if (action === "retry-once" && message.attempts === 1) message.retry();
      else if (action === "ack") message.ack();
    }
  },
} satisfies ExportedHandler<Env, Job>;
