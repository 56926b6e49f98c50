// What the lossy consumer and its fix share: each order is inserted, and `settle` acks or
// retries its message knowing whether the insert went through.
export interface Env {
  DB: D1Database;
}

type Settle = (message: Message<{ orderId: string }>, inserted: boolean) => void;

export function recordOrders(settle: Settle) {
  return {
    async queue(batch: MessageBatch<{ orderId: string }>, env: Env): Promise<void> {
      for (const message of batch.messages) {
        let inserted = false;
        try {
          await env.DB.prepare("INSERT INTO orders (order_id) VALUES (?) RETURNING *").bind(message.body.orderId).all();
          inserted = true;
        } catch {
          // Settled below.
        }
        settle(message, inserted);
      }
    },
  };
}
