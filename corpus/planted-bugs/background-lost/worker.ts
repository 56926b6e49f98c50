// An order intake with a planted bug: the order is saved in background work.
//
// The handler answers 202 at once and leaves the write to ctx.waitUntil. The
// caller got its 2xx, so it never resends; if the background work is cut off
// (the runtime ends the invocation before the work started its write) or
// fails, nobody retries it and the accepted order is never recorded.

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
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    if (request.method !== "POST" || new URL(request.url).pathname !== "/orders") {
      return new Response("not found", { status: 404 });
    }
    const order = await request.json<Order>();
    ctx.waitUntil(saveOrder(env, order));
    return new Response("accepted", { status: 202 });
  },
} satisfies ExportedHandler<Env>;
