import { forall } from "eutaxy/spec";
import { initials } from "./domain.ts";

// Strings are drawn short (eight code units unless a sample says otherwise),
// so no draw is forty long: sampling cannot meet this precondition.
export const longNames = forall(initials, {
  when: (name) => name.length === 40,
  ensures: (name) => initials(name).length === 1,
});
