import "./polyfill.ts";

export function whole(x: number): number {
  return Math.trunc(x);
}
