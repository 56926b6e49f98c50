// Bank transfers: free from 20.00 on, a flat 0.50 below.
const FREE_FROM = 2000;
const SMALL_TRANSFER_FEE = 50;

export function fee(amountCents: number): number {
  if (amountCents >= FREE_FROM) {
    return 0;
  }
  return SMALL_TRANSFER_FEE;
}
