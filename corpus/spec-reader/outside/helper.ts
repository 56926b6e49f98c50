export function helper(n: number): number {
  return n * 2;
}
