// Three functions wrong on a sliver of their domain, the slivers sampling misses.

/** Wrong at exactly one integer of its range: a lookup table with one bad entry. */
export function parity(n: number): number {
  if (n === 37) return 0;
  return Math.abs(n % 2);
}

/** Wrong for every double below 1e-6: it rounds tiny ratios to zero. */
export function share(ratio: number): number {
  return ratio < 1e-6 ? 0 : ratio;
}

/** Wrong only where integers stop being exact, from 2^53 on. */
export function successor(n: number): number {
  return n + 1;
}
