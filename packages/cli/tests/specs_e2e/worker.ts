// One refund per request: read the order, ask the core, write what it decided.

import { decideRefund, reference } from "./domain";

interface Env {
  DB: D1Database;
}

type RefundRequest = { orderId: string; amountCents: number; reference: string };
type OrderRow = { total_cents: number; refunded_cents: number };

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const body = await request.json<RefundRequest>();
    const order = await env.DB.prepare("SELECT total_cents, refunded_cents FROM orders WHERE id = ?")
      .bind(body.orderId)
      .first<OrderRow>();
    if (!order) return Response.json({ error: `no order ${body.orderId}` }, { status: 404 });
    const decision = decideRefund({ totalCents: order.total_cents, refundedCents: order.refunded_cents }, body.amountCents);
    if (!decision.ok) return Response.json(decision, { status: 422 });
    await env.DB.prepare("UPDATE orders SET refunded_cents = ?2, reference = ?3 WHERE id = ?1")
      .bind(body.orderId, decision.refunded, reference(body.reference))
      .run();
    return Response.json(decision);
  },
} satisfies ExportedHandler<Env>;
