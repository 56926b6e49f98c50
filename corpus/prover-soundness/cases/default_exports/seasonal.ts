// Seasonal discount: a flat 2.00 off any order above 10.00.
function discount(orderCents: number): number {
  return orderCents > 1000 ? 200 : 0;
}

export default discount;
