import { fee as cardFee } from "./card.ts";
import { fee as bankFee } from "./bank.ts";

export { cardFee, bankFee };

// The method a merchant configured for payouts; kept as an alias so it can be swapped in one place.
const payoutFee = bankFee;

export function payoutCost(amountCents: number): number {
  return payoutFee(amountCents);
}

export function cheapestFee(amountCents: number): number {
  return Math.min(cardFee(amountCents), bankFee(amountCents));
}

export function chargeTotal(amountCents: number): number {
  return amountCents + cardFee(amountCents);
}
