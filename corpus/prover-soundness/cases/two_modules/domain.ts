import { planLimit, planPriceCents } from "./plans.ts";
import { overageCents } from "./usage.ts";

export function monthlyBill(tier: number, used: number): number {
  return planPriceCents(tier) + overageCents(used, planLimit(tier));
}

// A fee passed in by the caller: the parameter `fee` shadows nothing the module calls.
export function netPayout(grossCents: number, fee: number): number {
  return grossCents - fee;
}
