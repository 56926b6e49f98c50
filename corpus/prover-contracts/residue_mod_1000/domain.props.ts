import { forall } from "eutaxy/spec";
import { halfFee } from "./domain.ts";

// False on one amount in a thousand (those ending in 937): a hundred random
// draws miss it, but 937 is written in the module, so TESTED draws it.
export const halfFeeNonNegative = forall(halfFee, {
  when: (amount) => Number.isInteger(amount) && 0 <= amount && amount <= 1000000,
  ensures: (amount) => halfFee(amount) >= 0,
});
