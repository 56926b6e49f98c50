import { helper } from "./helper.ts";

// Each function holds one construct outside the subset, read where it stands.
export function loops(n: number): number {
  const start = n;
  for (let i = 0; i < 3; i++) n = n + i;
  return start + n;
}

export function mutates(n: number): number {
  let total = n;
  total += 1;
  return total;
}

export function callsOut(n: number): number {
  return helper(n) + 1;
}

export function usesMethod(s: string): string {
  return s.trim();
}

export function generic<T>(value: T): T {
  return value;
}

export function hidden(n: number): number {
  // @ts-ignore: the compiler's error is hidden here
  return n.nope;
}

export let pick = (n: number): number => n;

export function callsLet(n: number): number {
  return pick(n) + 1;
}
