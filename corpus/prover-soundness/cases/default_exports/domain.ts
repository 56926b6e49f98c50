import loyaltyDiscount from "./loyalty.ts";
import seasonalDiscount from "./seasonal.ts";
import clampRefund from "./clamp.ts";

export { loyaltyDiscount, seasonalDiscount, clampRefund };

export function bestDiscount(orderCents: number): number {
  return Math.max(loyaltyDiscount(orderCents), seasonalDiscount(orderCents));
}
