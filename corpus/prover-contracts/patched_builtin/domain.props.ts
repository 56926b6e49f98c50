import { forall } from "eutaxy/spec";
import { whole } from "./domain.ts";

// True of the standard Math.trunc, which the SMT engine models; false of the
// patched one the module really runs at 0.5, an edge TESTED always tries.
export const wholeNotAbove = forall(whole, {
  when: (x) => 0 <= x,
  ensures: (x) => whole(x) <= x,
});
