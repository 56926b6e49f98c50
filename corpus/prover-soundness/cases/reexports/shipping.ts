// Shipping: free from 50.00 on, 4.99 below.
const FREE_SHIPPING_FROM = 5000;

export function fee(orderCents: number): number {
  return orderCents >= FREE_SHIPPING_FROM ? 0 : 499;
}

export function handling(orderCents: number): number {
  return orderCents > 0 ? 150 : 0;
}
