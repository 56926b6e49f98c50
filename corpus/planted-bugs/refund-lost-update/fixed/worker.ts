// The refund endpoint, fixed: the write is conditional on the refunded total it read.
//
// UPDATE ... WHERE refunded_cents = <what was read> changes nothing when another refund
// committed in between; the handler then reads again and decides again (a few times),
// and answers 409 if the order keeps moving. Every write that commits rests on a read
// no other write made stale.

import { decideRefund } from "./domain";

interface Env {
  DB: D1Database;
}

type RefundRequest = { orderId: string; amountCents: number };
type OrderRow = { total_cents: number; refunded_cents: number };

/** Attempts at the read-decide-write cycle before answering 409. */
const ATTEMPTS = 3;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { orderId, amountCents } = await request.json<RefundRequest>();
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const order = await env.DB.prepare("SELECT total_cents, refunded_cents FROM orders WHERE id = ?")
        .bind(orderId)
        .first<OrderRow>();
      if (!order) return Response.json({ error: `no order ${orderId}` }, { status: 404 });
      const decision = decideRefund({ totalCents: order.total_cents, refundedCents: order.refunded_cents }, amountCents);
      if (!decision.ok) return Response.json(decision, { status: 422 });
      const written = await env.DB.prepare("UPDATE orders SET refunded_cents = ?2 WHERE id = ?1 AND refunded_cents = ?3")
        .bind(orderId, decision.refunded, order.refunded_cents)
        .run();
      if (written.meta.changes === 1) return Response.json(decision);
    }
    return Response.json({ error: "the order changed while refunding; try again" }, { status: 409 });
  },
} satisfies ExportedHandler<Env>;
