// The fixed twin of ../worker.ts: the charge carries an idempotency key per order.
//
// The key is derived from the order, so every resend of the webhook sends the
// same one, and the payment API answers a repeat with the earlier charge
// instead of charging again.

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
      headers: { "content-type": "application/json", "Idempotency-Key": `order-paid/${order.orderId}` },
      body: JSON.stringify({ orderId: order.orderId, amountCents: order.amountCents, currency: "usd" }),
    });
    if (!reply.ok) return new Response("the charge failed", { status: 502 });
    const charge = await reply.json<{ id: string }>();
    return Response.json({ charged: charge.id });
  },
} satisfies ExportedHandler;
