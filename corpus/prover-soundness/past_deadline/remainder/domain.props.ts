import { forall } from "eutaxy/spec";
import { leftoverCents } from "./domain.ts";

const cents = (x: number) => Number.isInteger(x) && x >= -1_000_000 && x <= 1_000_000;

// False: a refund of -0.01 leaves -1 cent (the remainder takes the dividend's sign).
export const leftoverNeverNegative = forall(leftoverCents, {
  when: (amount) => cents(amount),
  ensures: (amount) => leftoverCents(amount) >= 0,
});

// True: the remainder stays above -1.00.
export const leftoverAboveMinusAEuro = forall(leftoverCents, {
  when: (amount) => cents(amount),
  ensures: (amount) => leftoverCents(amount) > -100,
});
