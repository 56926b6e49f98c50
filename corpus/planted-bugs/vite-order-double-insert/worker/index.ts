// The order API with a planted bug: the insert is not idempotent.
//
// The order is recorded, then its receipt is written by a module loaded on
// first use (a separate chunk of the Vite build). If the invocation fails after
// the INSERT committed (the write's answer lost, a crash before the response),
// the caller sends the order again and a second row is recorded for it.

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
    await env.DB.prepare("INSERT INTO orders (order_id, amount_cents) VALUES (?, ?)")
      .bind(order.orderId, order.amountCents)
      .run();
    const { receipt } = await import("./receipt");
    return Response.json(receipt(order), { status: 201 });
  },
} satisfies ExportedHandler<Env>;
