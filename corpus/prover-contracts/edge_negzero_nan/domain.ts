// Two functions whose claims fail on one double each: -0 and NaN.
export function toKey(n: number): string {
  return String(n);
}

export function clampPercent(p: number): number {
  return p < 0 ? 0 : p > 100 ? 100 : p;
}
