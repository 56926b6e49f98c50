// A payments consumer with a planted bug: ackAll() after a loop that stops at the
// first failure.
//
// Each message of the batch records one payment. When a write fails, the loop
// asks for that message again and stops, meaning to leave the rest of the batch
// for later; then batch.ackAll() acknowledges every message not yet decided,
// the ones after the failure too. They were never recorded, and the queue
// deletes them: lost payments. Only a batch of several messages shows it.

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
      try {
        await env.DB.prepare("INSERT INTO payments (order_id, amount_cents) VALUES (?, ?) ON CONFLICT (order_id) DO NOTHING")
          .bind(orderId, amountCents)
          .run();
      } catch (error) {
        console.error(`payment ${orderId} failed, trying it again later: ${String(error)}`);
        message.retry();
        break;
      }
    }
    batch.ackAll();
  },
} satisfies ExportedHandler<Env, PaymentMessage>;
