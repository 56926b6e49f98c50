// The order Worker: reserves stock with the inventory Worker over RPC, then records the order.
//
// The inventory call goes through a service binding. When it fails (the connection was lost,
// or the inventory Worker failed), the order Worker calls reserve() once more before giving
// up, and the shop's own resend of the order request calls it again too.

interface Inventory {
  reserve(orderId: string, sku: string, qty: number): Promise<{ reservationId: string }>;
}

interface Env {
  DB: D1Database;
  INVENTORY: Inventory;
}

async function reserve(env: Env, orderId: string, sku: string, qty: number): Promise<{ reservationId: string } | null> {
  for (let attempt = 1; attempt <= 2; attempt++) {
    try {
      return await env.INVENTORY.reserve(orderId, sku, qty);
    } catch (error) {
      console.log(`reserve ${orderId}: attempt ${attempt} failed: ${(error as Error).message}`);
    }
  }
  return null;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { orderId, sku, qty } = await request.json<{ orderId: string; sku: string; qty: number }>();
    const reservation = await reserve(env, orderId, sku, qty);
    if (reservation === null) return new Response("inventory unavailable", { status: 503 });
    await env.DB.prepare(
      "INSERT INTO orders (order_id, sku, qty, reservation_id) VALUES (?, ?, ?, ?) " +
        "ON CONFLICT(order_id) DO UPDATE SET reservation_id = excluded.reservation_id",
    )
      .bind(orderId, sku, qty, reservation.reservationId)
      .run();
    return Response.json({ orderId, reservationId: reservation.reservationId }, { status: 201 });
  },
} satisfies ExportedHandler<Env>;
