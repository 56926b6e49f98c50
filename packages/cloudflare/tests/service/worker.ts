// The shop Worker: /checkout reserves an order's stock through ORDERS, calling again once when
// the call throws (so a reservation whose answer was lost is made twice); /status fetches
// through the binding; each other path uses the binding in a way the script cannot answer.

interface Orders {
  reserve(orderId: string): Promise<{ held: boolean }>;
  store(name: string): Promise<{ get(key: string): Promise<unknown> }>;
  missing(): Promise<unknown>;
}

interface Env {
  ORDERS: Fetcher & Orders;
  PLAIN: Fetcher & Orders;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === "/checkout") {
      const { orderId } = await request.json<{ orderId: string }>();
      for (let attempt = 1; ; attempt++) {
        try {
          return Response.json(await env.ORDERS.reserve(orderId));
        } catch (error) {
          if (attempt === 2) throw error;
        }
      }
    }
    if (path === "/status") return new Response(await (await env.ORDERS.fetch("https://orders.internal/status")).text());
    if (path === "/unscripted") return Response.json(await env.ORDERS.missing());
    if (path === "/unmatched") return new Response((await env.ORDERS.fetch("https://orders.internal/nowhere")).status.toString());
    if (path === "/redirect") return new Response((await env.ORDERS.fetch("https://orders.internal/old")).status.toString());
    if (path === "/connect") return new Response(String((env.ORDERS as unknown as { connect(a: string): unknown }).connect("orders.internal:443")));
    if (path === "/pipelined") return Response.json(await (env.ORDERS.store("s-1") as unknown as { get(k: string): Promise<unknown> }).get("k"));
    if (path === "/plain") return Response.json(await env.PLAIN.reserve("o-1"));
    return new Response("not found", { status: 404 });
  },
} satisfies ExportedHandler<Env>;
