// A payments consumer with a planted bug: the insert is not idempotent.
//
// Each message records one payment and is then acknowledged. If the
// invocation dies after the INSERT committed but before ack() (a crash, a
// timeout, an exception after the write), the queue redelivers the message
// and the payment is recorded a second time.

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
      await env.DB.prepare("INSERT INTO payments (order_id, amount_cents) VALUES (?, ?)")
        .bind(orderId, amountCents)
        .run();
      message.ack();
    }
  },
} satisfies ExportedHandler<Env, PaymentMessage>;
