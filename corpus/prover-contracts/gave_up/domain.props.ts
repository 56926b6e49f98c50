import { forall } from "eutaxy/spec";
import { initials } from "./domain.ts";

// A checksum on the first character: one code unit in 65,536 meets it, and no
// guard steers toward it, so sampling cannot meet this precondition.
export const checksummedNames = forall(initials, {
  when: (name) => name.length > 0 && (name.charCodeAt(0) * 31) % 9973 === 4242,
  ensures: (name) => initials(name).length === 1,
});
