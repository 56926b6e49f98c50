import { forall } from "eutaxy/spec";
import { prorate } from "./domain.ts";

const cents = (x: number) => Number.isInteger(x) && x >= 0 && x <= 10_000_000;

// False in Node: the polyfilled floor rounds, so 2 of 3 days of 1.00 is 67, above 200/3. True of the standard floor.
export const prorationNeverOvercharges = forall(prorate, {
  when: (monthly, used, days) => cents(monthly) && Number.isInteger(used) && used >= 0 && used <= days && days >= 28 && days <= 31,
  ensures: (monthly, used, days) => prorate(monthly, used, days) * days <= monthly * used,
});

// True of the standard floor and of the polyfill alike, but never PROVEN while the module patches a built-in.
export const fullMonthIsMonthly = forall(prorate, {
  when: (monthly, used, days) => cents(monthly) && used === days && days >= 28 && days <= 31,
  ensures: (monthly, used, days) => prorate(monthly, used, days) === monthly,
});
