import { forall } from "eutaxy/spec";
import { capDiscount, listedDiscount, priceAfterDiscount } from "./domain.ts";

const cents = (x: number) => Number.isInteger(x) && x >= 0 && x <= 10_000_000;

// False of the checkout's capDiscount (it allows 50.00); true of rounding.ts's private one (5.00).
export const discountAtMostFiveEuros = forall(capDiscount, {
  when: (discount) => cents(discount),
  ensures: (discount) => capDiscount(discount) <= 500,
});

// True of the checkout's own (false of the private one, which stops at 500).
export const discountUpToFiftyIsKept = forall(capDiscount, {
  when: (discount) => cents(discount) && discount <= 5000,
  ensures: (discount) => capDiscount(discount) === discount,
});

// True of rounding.ts's private one, which listedDiscount reaches (false of the checkout's).
export const listedDiscountAtMostFiveEuros = forall(listedDiscount, {
  when: (discount) => cents(discount),
  ensures: (discount) => listedDiscount(discount) <= 500,
});

// False: the receipt shows at most 500, so a 6.00 discount is not shown whole.
export const listedDiscountIsKept = forall(listedDiscount, {
  when: (discount) => cents(discount) && discount <= 5000,
  ensures: (discount) => listedDiscount(discount) === discount,
});

// True: the checkout takes at most 50.00 off.
export const priceDropsAtMostFifty = forall(priceAfterDiscount, {
  when: (price, discount) => cents(price) && cents(discount),
  ensures: (price, discount) => priceAfterDiscount(price, discount) >= price - 5000,
});

// False: it takes up to 50.00 off, not 5.00.
export const priceDropsAtMostFive = forall(priceAfterDiscount, {
  when: (price, discount) => cents(price) && cents(discount),
  ensures: (price, discount) => priceAfterDiscount(price, discount) >= price - 500,
});
