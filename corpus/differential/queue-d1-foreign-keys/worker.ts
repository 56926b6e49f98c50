// An orders consumer on tables linked by foreign keys, as D1 enforces them
// (PRAGMA foreign_keys is on in D1). An order for a customer that does not exist
// fails its insert; an order written as one batch whose line names another order
// fails as a whole; forgetting a customer cascades to its orders and their lines.
// A refused message is recorded with D1's error, then acked. There is no planted
// bug: the proxied and the raw run must end with the same tables and decisions.

interface Env {
  DB: D1Database;
}

interface Job {
  op: "order" | "order-batch" | "forget" | "cancel";
  customer?: string;
  order?: string;
  lineOrder?: string;
  amountCents?: number;
  skus?: string[];
}

async function refuse(env: Env, messageId: string, error: unknown): Promise<void> {
  const reason = error instanceof Error ? error.message : String(error);
  await env.DB.prepare("INSERT INTO rejections (message_id, reason) VALUES (?, ?)").bind(messageId, reason).run();
}

export default {
  async queue(batch: MessageBatch<Job>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      const job = message.body;
      try {
        if (job.op === "order") {
          await env.DB.prepare("INSERT INTO orders (id, customer_id, amount_cents) VALUES (?, ?, ?)")
            .bind(job.order, job.customer, job.amountCents ?? 0)
            .run();
          for (const [line, sku] of (job.skus ?? []).entries()) {
            await env.DB.prepare("INSERT INTO order_lines (order_id, line, sku) VALUES (?, ?, ?)").bind(job.order, line, sku).run();
          }
        } else if (job.op === "order-batch") {
          // All or nothing: a line naming an order that does not exist fails the whole batch.
          await env.DB.batch([
            env.DB.prepare("INSERT INTO orders (id, customer_id, amount_cents) VALUES (?, ?, ?)").bind(job.order, job.customer, job.amountCents ?? 0),
            ...(job.skus ?? []).map((sku, line) =>
              env.DB.prepare("INSERT INTO order_lines (order_id, line, sku) VALUES (?, ?, ?)").bind(job.lineOrder ?? job.order, line, sku),
            ),
          ]);
        } else if (job.op === "forget") {
          await env.DB.prepare("DELETE FROM customers WHERE id = ?").bind(job.customer).run();
        } else if (job.op === "cancel") {
          await env.DB.prepare("DELETE FROM orders WHERE id = ?").bind(job.order).run();
        }
      } catch (error) {
        await refuse(env, message.id, error);
      }
      message.ack();
    }
  },
} satisfies ExportedHandler<Env, Job>;
