// An order-paid webhook with a planted bug: the charge carries no idempotency key.
//
// The shop's webhook resends until it gets a 2xx. When the charge request
// reaches the payment API and commits but its answer is lost (a dropped
// connection: the ambiguous outcome), the handler fails with a 500, the shop
// resends, and the second attempt charges the customer again.

interface OrderPaid {
  orderId: string;
  amountCents: number;
}

const CHARGES_URL = "https://api.pay.example/v1/charges";

export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (request.method !== "POST" || url.pathname !== "/webhooks/order-paid") {
      return new Response("not found", { status: 404 });
    }
    const order = await request.json<OrderPaid>();
    const reply = await fetch(CHARGES_URL, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ orderId: order.orderId, amountCents: order.amountCents, currency: "usd" }),
    });
    if (!reply.ok) return new Response("the charge failed", { status: 502 });
    const charge = await reply.json<{ id: string }>();
    return Response.json({ charged: charge.id });
  },
} satisfies ExportedHandler;
