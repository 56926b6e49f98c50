const CENTS_PER_EURO = 100;

// The cents left over after whole euros; a refund is a negative amount.
export function leftoverCents(amountCents: number): number {
  return amountCents % CENTS_PER_EURO;
}
