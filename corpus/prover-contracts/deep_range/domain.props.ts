import { forall } from "eutaxy/spec";
import { fee } from "./domain.ts";

export const feeNonNegative = forall(fee, {
  when: (cents) => Number.isInteger(cents) && 0 <= cents && cents <= 10000,
  ensures: (cents) => fee(cents) >= 0,
});
