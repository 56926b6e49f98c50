// The corpus's good Worker: one idempotent insert per message, then the ack.
interface Env {
  DB: D1Database;
}

export default {
  async queue(batch: MessageBatch<{ orderId: string; amountCents: number }>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      await env.DB.prepare("INSERT OR IGNORE INTO payments (order_id, amount_cents) VALUES (?, ?)")
        .bind(message.body.orderId, message.body.amountCents)
        .run();
      message.ack();
    }
  },
};
