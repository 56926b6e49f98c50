// A small Worker to copy: it records orders sent to POST /orders, once per
// Idempotency-Key, so a client that resends after a lost answer does not order twice.

interface D1Result { meta: { changes: number } }
interface D1PreparedStatement { bind(...values: unknown[]): D1PreparedStatement; run(): Promise<D1Result> }
interface D1Database { prepare(sql: string): D1PreparedStatement }

export interface Env { DB: D1Database }

type Order = { sku: string; quantity: number };

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (request.method !== "POST" || url.pathname !== "/orders") {
      return new Response("not found", { status: 404 });
    }
    const key = request.headers.get("Idempotency-Key");
    if (!key) return new Response("an Idempotency-Key header is required", { status: 400 });
    const order = (await request.json()) as Order;
    // One statement: the key's row is written once however often the request arrives.
    const { meta } = await env.DB.prepare(
      "INSERT INTO orders (idempotency_key, sku, quantity) VALUES (?, ?, ?) ON CONFLICT(idempotency_key) DO NOTHING",
    ).bind(key, order.sku, order.quantity).run();
    return Response.json({ recorded: meta.changes === 1 }, { status: 201 });
  },
};
