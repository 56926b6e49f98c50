// A loop is outside the subset: the engine names it and its line, and never guesses.
export function countDown(n: number): number {
  while (n > 0) n = n - 1;
  return n;
}
