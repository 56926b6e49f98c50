// An order intake that hands each order to its own queue: fetch() accepts the order and
// sends it to ORDERS, and queue() records it in D1. The planted bug: a send that fails is
// logged away and the order accepted anyway (202), so the caller never resends and nothing
// will ever record it.

interface Env {
  DB: D1Database;
  ORDERS: Queue<Order>;
}

type Order = { orderId: string; amountCents: number };

const RECORD_ORDER = "INSERT INTO orders (order_id, amount_cents) VALUES (?, ?) ON CONFLICT(order_id) DO NOTHING";

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (request.method !== "POST") return new Response("method not allowed", { status: 405 });
    const order = await request.json<Order>();
    try {
      await env.ORDERS.send(order);
    } catch {
      // BUG: the order was never queued, yet the caller is told it was accepted.
    }
    return Response.json({ accepted: order.orderId }, { status: 202 });
  },

  async queue(batch: MessageBatch<Order>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      const order = message.body;
      await env.DB.prepare(RECORD_ORDER).bind(order.orderId, order.amountCents).run();
      message.ack();
    }
  },
};
