// Loyalty discount: 5% off from 100.00 on.
export default function discount(orderCents: number): number {
  return orderCents >= 10000 ? Math.floor(orderCents / 20) : 0;
}
