// Gift wrapping: a flat 3.50 whatever the order.
export function fee(orderCents: number): number {
  return orderCents >= 0 ? 350 : 0;
}
