// The fixed twin of queue-ackall-lost: each message is acknowledged once its
// payment is recorded, and at the first failure the rest of the batch is retried.
//
// retryAll() asks again for every message not yet decided: the failed one and
// the ones after it. The ones already acknowledged stay so (the first decision
// per message wins), so nothing recorded is delivered again and nothing
// unrecorded is deleted.

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
        console.error(`payment ${orderId} failed, trying the rest of the batch again later: ${String(error)}`);
        batch.retryAll();
        return;
      }
      message.ack();
    }
  },
} satisfies ExportedHandler<Env, PaymentMessage>;
