// Half of a fee in whole cents, with a slip on one residue in a thousand.
export function halfFee(amount: number): number {
  const rest = amount - Math.floor(amount / 1000) * 1000;
  if (rest === 937) return -1;
  return Math.floor(amount / 2);
}
