import { forall } from "eutaxy/spec";
import { clamp } from "./domain.ts";

export const inRange = forall(clamp, {
  ensures: (x) => Number.isNaN(x) || (0 <= clamp(x) && clamp(x) <= 100),
});
