import { forall } from "eutaxy/spec";
import { distinctAmounts } from "./domain.ts";

// False as soon as an amount repeats.
export const oneEach = forall(distinctAmounts, {
  ensures: (amounts) => distinctAmounts(amounts) === amounts.length,
});
