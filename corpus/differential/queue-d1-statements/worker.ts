// An orders consumer doing a few kinds of D1 statement per message: an
// idempotent INSERT, an UPDATE, a SELECT then a conditional INSERT, and a
// batch holding a write and a read. Some messages ask for a retry on their
// first delivery and a poison message always throws, so the queue's
// redelivery and dead-letter rules are exercised too. There is no planted bug:
// the proxied and the raw run must end with the same tables and decisions.

interface Env {
  DB: D1Database;
}

interface OrderMessage {
  orderId: string;
  amountCents: number;
  retryFirst?: boolean;
  poison?: boolean;
}

export default {
  async queue(batch: MessageBatch<OrderMessage>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      const { orderId, amountCents, retryFirst, poison } = message.body;
      if (poison) throw new Error(`order ${orderId} cannot be processed`);
      if (retryFirst && message.attempts === 1) {
        message.retry();
        continue;
      }
      await env.DB.prepare(
        "INSERT INTO orders (order_id, amount_cents, status, deliveries) VALUES (?, ?, 'received', 0) ON CONFLICT (order_id) DO NOTHING",
      )
        .bind(orderId, amountCents)
        .run();
      await env.DB.prepare("UPDATE orders SET status = 'paid', deliveries = deliveries + 1 WHERE order_id = ?")
        .bind(orderId)
        .run();
      const entry = await env.DB.prepare("SELECT id FROM ledger WHERE order_id = ?").bind(orderId).first<number>("id");
      if (entry === null) {
        await env.DB.prepare("INSERT INTO ledger (order_id, amount_cents) VALUES (?, ?)").bind(orderId, amountCents).run();
      }
      const { results } = await env.DB.prepare("SELECT COUNT(*) AS n FROM audit WHERE order_id = ?").bind(orderId).all<{ n: number }>();
      await env.DB.batch([
        env.DB.prepare("INSERT INTO audit (order_id, attempt, seen) VALUES (?, ?, ?)").bind(orderId, message.attempts, results[0].n),
        env.DB.prepare("SELECT COUNT(*) AS n FROM audit"),
      ]);
      message.ack();
    }
  },
} satisfies ExportedHandler<Env, OrderMessage>;
