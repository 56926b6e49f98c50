import { forall } from "eutaxy/spec";
import { splitShare, vatCents } from "./domain.ts";

const cents = (x: number) => Number.isInteger(x) && x >= 0 && x <= 10_000_000;

// False in Node: Math.round is Math.trunc here, so vatCents(4) is 0, not 1. True of the standard Math.round.
export const vatWithinHalfACent = forall(vatCents, {
  when: (net) => cents(net),
  ensures: (net) => vatCents(net) >= net * 0.2 - 0.5,
});

// False in Node: splitting 2.00 three ways gives 66 (truncated), and 3 x 66 is 2 short of 200.
export const sharesCoverTheTotal = forall(splitShare, {
  when: (total, people) => cents(total) && people === 3,
  ensures: (total, people) => splitShare(total, people) * people >= total - 1,
});

// True in Node and of the standard built-in, but no engine may prove anything while the module patches one.
export const vatNeverNegative = forall(vatCents, {
  when: (net) => cents(net),
  ensures: (net) => vatCents(net) >= 0,
});
