import { forall } from "eutaxy/spec";
import { countDown } from "./domain.ts";

export const endsAtZero = forall(countDown, {
  when: (n) => Number.isInteger(n) && 0 <= n && n <= 100,
  ensures: (n) => countDown(n) === 0,
});
