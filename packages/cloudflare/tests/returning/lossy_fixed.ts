// The fixed consumer: a failed insert retries the message instead of acking it.
interface Env {
  DB: D1Database;
}

export default {
  async queue(batch: MessageBatch<{ orderId: string }>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      try {
        await env.DB.prepare("INSERT INTO orders (order_id) VALUES (?) RETURNING *").bind(message.body.orderId).all();
        message.ack();
      } catch {
        message.retry();
      }
    }
  },
};
