import { forall } from "eutaxy/spec";
import { area } from "./domain.ts";

// IEEE multiplication commutes (NaN aside, which === never equals).
export const areaCommutes = forall(area, {
  when: (width, height) => !Number.isNaN(width) && !Number.isNaN(height),
  ensures: (width, height) => area(width, height) === area(height, width),
});
