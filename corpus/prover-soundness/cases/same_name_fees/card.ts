// Card payments: 2.9% of the amount in whole cents, never below 30.
const CARD_RATE = 0.029;
const CARD_MINIMUM = 30;

export function fee(amountCents: number): number {
  return Math.max(CARD_MINIMUM, Math.round(amountCents * CARD_RATE));
}
