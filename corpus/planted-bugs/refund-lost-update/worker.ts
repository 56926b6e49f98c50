// A refund endpoint with a planted lost update: it reads the refunded total, asks the
// core what the new total is, and writes that total back unconditionally. Two partial
// refunds of one order handled at once (requests interleave at their I/O in one isolate)
// both read the old total, and the second write erases the first refund.

import { decideRefund } from "./domain";

interface Env {
  DB: D1Database;
}

type RefundRequest = { orderId: string; amountCents: number };
type OrderRow = { total_cents: number; refunded_cents: number };

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { orderId, amountCents } = await request.json<RefundRequest>();
    const order = await env.DB.prepare("SELECT total_cents, refunded_cents FROM orders WHERE id = ?")
      .bind(orderId)
      .first<OrderRow>();
    if (!order) return Response.json({ error: `no order ${orderId}` }, { status: 404 });
    const decision = decideRefund({ totalCents: order.total_cents, refundedCents: order.refunded_cents }, amountCents);
    if (!decision.ok) return Response.json(decision, { status: 422 });
    // The bug: nothing checks that refunded_cents is still what was read.
    await env.DB.prepare("UPDATE orders SET refunded_cents = ?2 WHERE id = ?1").bind(orderId, decision.refunded).run();
    return Response.json(decision);
  },
} satisfies ExportedHandler<Env>;
