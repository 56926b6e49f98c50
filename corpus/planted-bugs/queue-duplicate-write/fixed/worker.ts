// The fixed twin of ../worker.ts: the insert is idempotent per order.
//
// order_id is the table's primary key and a repeated delivery's insert does
// nothing (ON CONFLICT DO NOTHING), so a redelivery after the write committed
// changes no row and the payment stays recorded once.

interface Env {
  DB: D1Database;
}

interface PaymentMessage {
  orderId: string;
  amountCents: number;
}

export default {
  async queue(batch: MessageBatch<PaymentMessage>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      const { orderId, amountCents } = message.body;
      await env.DB.prepare(
        "INSERT INTO payments (order_id, amount_cents) VALUES (?, ?) ON CONFLICT(order_id) DO NOTHING",
      )
        .bind(orderId, amountCents)
        .run();
      message.ack();
    }
  },
} satisfies ExportedHandler<Env, PaymentMessage>;
