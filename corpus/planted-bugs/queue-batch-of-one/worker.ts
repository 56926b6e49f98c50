// A charges consumer with a planted bug: a shortcut for a batch of one message.
//
// The producer sends at least once, so one order can arrive in two messages. The
// batch path charges each order once: it skips an order already seen in the batch
// and one already charged (a row for it in D1). A batch of one takes a shortcut:
// "a lone message cannot duplicate another in its batch", so it skips both checks
// and relies on message_id alone, which only stops a redelivery of the same
// message. A second message for an order charged in an earlier batch, delivered
// alone, charges the order again. With every message waiting, Cloudflare delivers
// them in one batch and the shortcut never runs; a shorter batch (the batch
// timeout ending before the batch fills) leaves the duplicate on its own.

interface Env {
  DB: D1Database;
}

interface ChargeMessage {
  orderId: string;
  amountCents: number;
}

const INSERT = "INSERT INTO charges (message_id, order_id, amount_cents) VALUES (?, ?, ?) ON CONFLICT (message_id) DO NOTHING";

export default {
  async queue(batch: MessageBatch<ChargeMessage>, env: Env): Promise<void> {
    if (batch.messages.length === 1) {
      const [message] = batch.messages;
      const { orderId, amountCents } = message.body;
      await env.DB.prepare(INSERT).bind(message.id, orderId, amountCents).run();
      return;
    }
    const seen = new Set<string>();
    for (const message of batch.messages) {
      const { orderId, amountCents } = message.body;
      if (seen.has(orderId)) continue;
      seen.add(orderId);
      const charged = await env.DB.prepare("SELECT 1 AS charged FROM charges WHERE order_id = ?").bind(orderId).first();
      if (charged) continue;
      await env.DB.prepare(INSERT).bind(message.id, orderId, amountCents).run();
    }
  },
} satisfies ExportedHandler<Env, ChargeMessage>;
