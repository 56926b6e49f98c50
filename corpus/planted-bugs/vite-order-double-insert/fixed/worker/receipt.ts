// The receipt an order is answered with (loaded on first use: its own chunk of the build).
export function receipt(order: { orderId: string; amountCents: number }): { orderId: string; total: string } {
  return { orderId: order.orderId, total: `${(order.amountCents / 100).toFixed(2)} USD` };
}
