// The refund service's pure core, with the spec file beside it (domain.props.ts).

export type Order = { totalCents: number; refundedCents: number };
export type RefundDecision = { ok: boolean; refunded: number };

export function decideRefund(order: Order, amountCents: number): RefundDecision {
  const refunded = order.refundedCents + amountCents;
  if (!Number.isInteger(amountCents) || amountCents <= 0 || refunded > order.totalCents) {
    return { ok: false, refunded: order.refundedCents };
  }
  return { ok: true, refunded };
}

// The reference printed on the refund: the caller's, trimmed of spaces at either end.
export function reference(text: string): string {
  return text.trim();
}
