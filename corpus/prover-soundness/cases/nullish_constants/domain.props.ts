import { forall } from "eutaxy/spec";
import { currencyLength, discounted, hourlyRate, invoiceCents, minimumCharge } from "./domain.ts";

const hours = (h: number) => Number.isInteger(h) && h >= 1 && h <= 1000;
const cents = (x: number) => Number.isInteger(x) && x >= 0 && x <= 10_000_000;

// False: the override is null, so the rate is 150.
export const rateNeverBelow190 = forall(invoiceCents, {
  when: (h) => hours(h),
  ensures: (h) => invoiceCents(h) >= 190 * h,
});

// False: the same, through a helper the claim calls with no arguments.
export const hourlyRateIsOverridden = forall(minimumCharge, {
  when: (h) => hours(h),
  ensures: (h) => hourlyRate() !== 150,
});

// False: the minimum override is undefined, so one hour is charged 500, not 150.
export const minimumIsOneHour = forall(minimumCharge, {
  when: (h) => hours(h) && h <= 3,
  ensures: (h) => minimumCharge(h) === 150 * h,
});

// False: 0 is not nullish, so nothing is taken off (a `||` would have given 10%).
export const discountTakesTenPercent = forall(discounted, {
  when: (price) => cents(price) && price >= 100,
  ensures: (price) => discounted(price) < price,
});

// True: the rate is the default.
export const invoiceIsHoursAtDefault = forall(invoiceCents, {
  when: (h) => hours(h),
  ensures: (h) => invoiceCents(h) === 150 * h,
});

// True: at least the 500 minimum.
export const minimumAtLeast500 = forall(minimumCharge, {
  when: (h) => hours(h),
  ensures: (h) => minimumCharge(h) >= 500,
});

// True: a zero discount keeps the price.
export const zeroDiscountKeepsPrice = forall(discounted, {
  when: (price) => cents(price),
  ensures: (price) => discounted(price) === price,
});

// True: the default currency code has three letters.
export const currencyIsThreeLetters = forall(currencyLength, {
  when: (extra) => Number.isInteger(extra) && extra >= 0 && extra <= 10,
  ensures: (extra) => currencyLength(extra) === extra + 3,
});
