// Receipt display: a discount shown on a receipt is never above 5.00. Its `capDiscount` is private.
function capDiscount(discountCents: number): number {
  return discountCents > 500 ? 500 : discountCents;
}

export function receiptDiscount(requestedCents: number): number {
  return capDiscount(requestedCents);
}
