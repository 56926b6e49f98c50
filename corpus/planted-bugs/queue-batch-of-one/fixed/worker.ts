// The fixed twin of queue-batch-of-one: every batch, of one message or many,
// checks whether the order was charged before it charges it.
//
// A message for an order already charged in an earlier batch is skipped whether
// it comes alone or with others, so no grouping of the messages charges an order
// twice.

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
