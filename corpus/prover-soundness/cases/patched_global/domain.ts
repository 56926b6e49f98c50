import { POLYFILLED } from "./polyfill.ts";

export function prorate(monthlyCents: number, daysUsed: number, daysInMonth: number): number {
  return Math.floor((monthlyCents * daysUsed) / daysInMonth);
}

export function compatible(): boolean {
  return POLYFILLED;
}
