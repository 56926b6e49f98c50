import { receiptDiscount } from "./rounding.ts";

const MAX_DISCOUNT = 5000;

// The checkout's own cap on a discount: 50.00.
export function capDiscount(discountCents: number): number {
  return discountCents > MAX_DISCOUNT ? MAX_DISCOUNT : discountCents;
}

export function listedDiscount(requestedCents: number): number {
  return receiptDiscount(requestedCents);
}

export function priceAfterDiscount(priceCents: number, requestedCents: number): number {
  return Math.max(0, priceCents - capDiscount(requestedCents));
}
