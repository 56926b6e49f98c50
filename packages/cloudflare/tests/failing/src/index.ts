// Records each order, once the API it reports to is configured: API_BASE never is, so every
// delivery throws on line 12, after logging the error's stack (which must name this file).
interface Env {
  DB: D1Database;
  API_BASE?: string;
}

type Order = { orderId: string };

function apiBase(env: Env): string {
  if (!env.API_BASE) {
    throw new TypeError("API_BASE is not set");
  }
  return env.API_BASE;
}

export default {
  async queue(batch: MessageBatch<Order>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      try {
        apiBase(env);
      } catch (error) {
        console.error((error as Error).stack);
        throw error;
      }
      await env.DB.prepare("INSERT INTO orders (order_id) VALUES (?)").bind(message.body.orderId).run();
      message.ack();
    }
  },
};
