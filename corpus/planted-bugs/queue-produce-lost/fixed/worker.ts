// The fixed twin of queue-produce-lost: a send that fails is the caller's to know, so the
// intake answers 503 and the caller resends until the order is queued. The consumer
// records an order once however often it is delivered.

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
      return Response.json({ error: "order not queued; try again" }, { status: 503 });
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
