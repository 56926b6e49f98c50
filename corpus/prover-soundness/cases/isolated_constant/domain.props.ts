import { forall } from "eutaxy/spec";
import { graceMs, requestsLeft, shippingCents, unitPrice } from "./domain.ts";

// False only at used = 249, next to the limit 250.
export const requestsLeftNeverNegative = forall(requestsLeft, {
  when: (used) => Number.isInteger(used) && used >= 0 && used <= 1_000_000,
  ensures: (used) => requestsLeft(used) >= 0,
});

// False only at quantity = 99, one below the bulk boundary 100 (120 > 100).
export const unitPriceAtMostList = forall(unitPrice, {
  when: (quantity) => Number.isInteger(quantity) && quantity >= 1 && quantity <= 1_000_000,
  ensures: (quantity) => unitPrice(quantity) <= 100,
});

// False only at skew = -90000, one and a half minutes back.
export const graceAtMostAMinute = forall(graceMs, {
  when: (skew) => Number.isInteger(skew) && skew >= -86_400_000 && skew <= 86_400_000,
  ensures: (skew) => graceMs(skew) <= 60_000,
});

// False only at order = 5001, one cent past the free-shipping threshold.
export const shippingAtMostStandard = forall(shippingCents, {
  when: (order) => Number.isInteger(order) && order >= 0 && order <= 100_000_000,
  ensures: (order) => shippingCents(order) <= 499,
});

// True: the quota never exceeds the limit.
export const requestsLeftWithinLimit = forall(requestsLeft, {
  when: (used) => Number.isInteger(used) && used >= 0 && used <= 1_000_000,
  ensures: (used) => requestsLeft(used) <= 250,
});
