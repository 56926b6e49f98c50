// Counts the distinct amounts in a batch.
export function distinctAmounts(amounts: readonly number[]): number {
  return new Set(amounts).size;
}
