// A consumer that swallows a failed insert and acks: the message is lost (the bug).
interface Env {
  DB: D1Database;
}

export default {
  async queue(batch: MessageBatch<{ orderId: string }>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      try {
        await env.DB.prepare("INSERT INTO orders (order_id) VALUES (?) RETURNING *").bind(message.body.orderId).all();
      } catch {
        // Swallowed: the order is never recorded, and the ack below deletes the message.
      }
      message.ack();
    }
  },
};
