// The fixed twin of ../worker.ts: the order is saved before the Worker answers.
//
// Any failure of the write (a crash, an error) now reaches the caller as no
// answer or a 500, and the caller resends until the order is recorded; the
// write itself stays idempotent, so a resend after it committed adds nothing.

interface Env {
  DB: D1Database;
}

interface Order {
  orderId: string;
  amountCents: number;
}

/** Record an order once: a repeat of an order already saved changes nothing. */
async function saveOrder(env: Env, order: Order): Promise<void> {
  const existing = await env.DB.prepare("SELECT order_id FROM orders WHERE order_id = ?").bind(order.orderId).first();
  if (existing) return;
  await env.DB.prepare("INSERT INTO orders (order_id, amount_cents) VALUES (?, ?)").bind(order.orderId, order.amountCents).run();
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (request.method !== "POST" || new URL(request.url).pathname !== "/orders") {
      return new Response("not found", { status: 404 });
    }
    const order = await request.json<Order>();
    await saveOrder(env, order);
    return new Response("accepted", { status: 202 });
  },
} satisfies ExportedHandler<Env>;
