// The refund service's pure core: given the order as it was read, how much is refunded
// once this refund is granted. It is right for the state it saw; whether that state was
// still true when the Worker wrote is the shell's business, which `refines` checks.

export type Order = { totalCents: number; refundedCents: number };

export type RefundDecision =
  | { ok: true; refunded: number }
  | { ok: false; refunded: number; reason: string };

export function decideRefund(order: Order, amountCents: number): RefundDecision {
  if (!Number.isInteger(amountCents) || amountCents <= 0) {
    return { ok: false, refunded: order.refundedCents, reason: "the amount must be a positive number of cents" };
  }
  const refunded = order.refundedCents + amountCents;
  if (refunded > order.totalCents) {
    return { ok: false, refunded: order.refundedCents, reason: "more than the order's total" };
  }
  return { ok: true, refunded };
}
