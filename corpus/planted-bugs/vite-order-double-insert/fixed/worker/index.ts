// The fixed twin of ../worker/index.ts: the insert is idempotent per order.
//
// order_id is the table's primary key and a repeated request's insert does
// nothing (ON CONFLICT DO NOTHING), so a resend after the write committed
// changes no row and the order stays recorded once.

interface Env {
  DB: D1Database;
}

interface Order {
  orderId: string;
  amountCents: number;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (request.method !== "POST" || url.pathname !== "/api/orders") {
      return new Response("not found", { status: 404 });
    }
    const order = await request.json<Order>();
    await env.DB.prepare("INSERT INTO orders (order_id, amount_cents) VALUES (?, ?) ON CONFLICT(order_id) DO NOTHING")
      .bind(order.orderId, order.amountCents)
      .run();
    const { receipt } = await import("./receipt");
    return Response.json(receipt(order), { status: 201 });
  },
} satisfies ExportedHandler<Env>;
