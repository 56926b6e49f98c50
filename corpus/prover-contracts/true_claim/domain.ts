// A refund decision that never refunds more than was captured.
export interface Decision {
  refunded: number;
  accepted: boolean;
}

export function decideRefund(captured: number, refunded: number, amount: number): Decision {
  if (!(amount > 0) || refunded + amount > captured) {
    return { refunded, accepted: false };
  }
  return { refunded: refunded + amount, accepted: true };
}
