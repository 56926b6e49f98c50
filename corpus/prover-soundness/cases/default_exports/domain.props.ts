import { forall } from "eutaxy/spec";
import { bestDiscount, clampRefund, loyaltyDiscount, seasonalDiscount } from "./domain.ts";
import discount from "./seasonal.ts";

const cents = (x: number) => Number.isInteger(x) && x >= 0 && x <= 10_000_000;

// False: loyalty gives nothing below 100.00 (the seasonal `discount` gives 200 from 10.01).
export const loyaltyFromTenEuros = forall(loyaltyDiscount, {
  when: (order) => cents(order) && order > 1000,
  ensures: (order) => loyaltyDiscount(order) >= 200,
});

// False: the seasonal discount is flat, 200 on a 1000.00 order (loyalty's would be 5000).
export const seasonalGrows = forall(seasonalDiscount, {
  when: (order) => cents(order) && order >= 100000,
  ensures: (order) => seasonalDiscount(order) >= 5000,
});

// False through the default import under the function's own name.
export const defaultImportGrows = forall(discount, {
  when: (order) => cents(order) && order >= 100000,
  ensures: (order) => discount(order) > 200,
});

// True of the seasonal discount (false of loyalty's).
export const seasonalAtMost200 = forall(seasonalDiscount, {
  when: (order) => cents(order),
  ensures: (order) => seasonalDiscount(order) <= 200,
});

// True: the best discount is at least each one, across two default-exporting modules.
export const bestIsAtLeastEach = forall(bestDiscount, {
  when: (order) => cents(order),
  ensures: (order) => bestDiscount(order) >= loyaltyDiscount(order) && bestDiscount(order) >= seasonalDiscount(order),
});

// True of the anonymous default arrow.
export const refundWithinPaid = forall(clampRefund, {
  when: (paid, asked) => cents(paid) && cents(asked),
  ensures: (paid, asked) => clampRefund(paid, asked) <= paid && clampRefund(paid, asked) >= 0,
});

// False: an asked amount above what was paid is cut to it.
export const refundIsWhatWasAsked = forall(clampRefund, {
  when: (paid, asked) => cents(paid) && cents(asked),
  ensures: (paid, asked) => clampRefund(paid, asked) === asked,
});
