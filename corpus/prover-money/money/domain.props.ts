import { forall } from "eutaxy/spec";
import { cardFee, clampRefund, credit, lineTotal, orderTotal, overQuota, prorate, remainingQuota, splitCents, tier } from "./domain.ts";

const cents = (x: number) => Number.isInteger(x) && x >= 0 && x <= 100_000_000;

export const orderTotalNeverNegative = forall(orderTotal, {
  when: (subtotal, discount) => cents(subtotal) && cents(discount),
  ensures: (subtotal, discount) => orderTotal(subtotal, discount) >= 0,
});

export const creditIsMonotone = forall(credit, {
  when: (balance, amount) => cents(balance) && cents(amount),
  ensures: (balance, amount) => credit(balance, amount) >= balance,
});

export const lineTotalOfNothingIsZero = forall(lineTotal, {
  when: (unit, quantity) => cents(unit) && quantity === 0,
  ensures: (unit, quantity) => lineTotal(unit, quantity) === 0,
});

export const lineTotalNeverNegative = forall(lineTotal, {
  when: (unit, quantity) => cents(unit) && cents(quantity),
  ensures: (unit, quantity) => lineTotal(unit, quantity) >= 0,
});

export const feeAtLeastFixed = forall(cardFee, {
  when: (amount) => cents(amount) && amount > 0,
  ensures: (amount) => cardFee(amount) >= 30,
});

export const feeBelowAmountPlusFixed = forall(cardFee, {
  when: (amount) => cents(amount),
  ensures: (amount) => cardFee(amount) <= amount + 30,
});

export const prorationWithinMonthly = forall(prorate, {
  when: (monthly, used, days) => cents(monthly) && Number.isInteger(used) && used >= 0 && used <= days && days >= 28 && days <= 31,
  ensures: (monthly, used, days) => prorate(monthly, used, days) <= monthly,
});

export const prorationNeverNegative = forall(prorate, {
  when: (monthly, used, days) => cents(monthly) && Number.isInteger(used) && used >= 0 && used <= days && days >= 28 && days <= 31,
  ensures: (monthly, used, days) => prorate(monthly, used, days) >= 0,
});

export const overQuotaNeverNegative = forall(overQuota, {
  when: (used) => cents(used),
  ensures: (used) => overQuota(used) >= 0,
});

export const refundWithinPaid = forall(clampRefund, {
  when: (paid, asked) => cents(paid) && cents(asked),
  ensures: (paid, asked) => clampRefund(paid, asked) <= paid && clampRefund(paid, asked) >= 0,
});

export const tierInRange = forall(tier, {
  when: (spend) => cents(spend),
  ensures: (spend) => tier(spend) >= 1 && tier(spend) <= 3,
});

export const remainingNeverNegative = forall(remainingQuota, {
  when: (limit, used) => cents(limit) && cents(used),
  ensures: (limit, used) => remainingQuota(limit, used) >= 0,
});

export const splitNeverExceedsTotal = forall(splitCents, {
  when: (total, parts) => cents(total) && Number.isInteger(parts) && parts >= 1 && parts <= 100,
  ensures: (total, parts) => splitCents(total, parts) * parts <= total,
});
