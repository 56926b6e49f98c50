// Each message is recorded as an ORM would: INSERT ... RETURNING * through .all(), then a
// SELECT through .run() (a read, whatever the method).
interface Env {
  DB: D1Database;
}

export default {
  async queue(batch: MessageBatch<{ orderId: string }>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      await env.DB.prepare("INSERT INTO orders (order_id) VALUES (?) RETURNING *").bind(message.body.orderId).all();
      await env.DB.prepare("SELECT count(*) AS n FROM orders").run();
      message.ack();
    }
  },
};
