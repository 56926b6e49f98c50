import { forall } from "eutaxy/spec";
import { bankFee, cardFee, cheapestFee, chargeTotal, payoutCost } from "./domain.ts";

const cents = (x: number) => Number.isInteger(x) && x >= 0 && x <= 10_000_000;
const chosen = bankFee;

// False: bankFee(2999) is 0 (bank.ts's fee); card.ts's fee, the first `fee` a name search meets, is 87 there.
export const bankFeeAtLeastCardMinimum = forall(bankFee, {
  when: (amount) => cents(amount),
  ensures: (amount) => bankFee(amount) >= 30,
});

// False: bank's fee is 50 below 20.00, card's is 30 at 0.
export const bankFeeNeverAbove30 = forall(bankFee, {
  when: (amount) => cents(amount) && amount < 1000,
  ensures: (amount) => bankFee(amount) <= 30,
});

// False through the module's local alias payoutFee = bankFee.
export const payoutCostIsCharged = forall(payoutCost, {
  when: (amount) => cents(amount),
  ensures: (amount) => payoutCost(amount) > 0,
});

// False through an alias in the spec file.
export const chosenFeeIsCharged = forall(chosen, {
  when: (amount) => cents(amount),
  ensures: (amount) => chosen(amount) > 0,
});

// True of card's fee (false of bank's, which is 0 from 2000 on).
export const cardFeeAtLeast30 = forall(cardFee, {
  when: (amount) => cents(amount),
  ensures: (amount) => cardFee(amount) >= 30,
});

// True of bank's fee (false of card's, which grows with the amount).
export const bankFeeAtMost50 = forall(bankFee, {
  when: (amount) => cents(amount),
  ensures: (amount) => bankFee(amount) <= 50,
});

// True: a claim across the two fee modules.
export const cheapestNeverAboveBank = forall(cheapestFee, {
  when: (amount) => cents(amount),
  ensures: (amount) => cheapestFee(amount) <= bankFee(amount) && cheapestFee(amount) <= cardFee(amount),
});

// True: the charge adds card's fee, at least 30.
export const chargeAddsAtLeast30 = forall(chargeTotal, {
  when: (amount) => cents(amount),
  ensures: (amount) => chargeTotal(amount) >= amount + 30,
});
