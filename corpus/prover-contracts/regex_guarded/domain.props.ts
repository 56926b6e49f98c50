import { forall } from "eutaxy/spec";
import { parseSku, topLevel } from "./domain.ts";

export const skuParses = forall(parseSku, {
  when: (text) => /^[A-Z]{3}-\d{4}$/.test(text),
  ensures: (text) => parseSku(text).prefix.length === 3 && parseSku(text).serial >= 0 && parseSku(text).serial <= 9999,
});

export const topLevelKept = forall(topLevel, {
  when: (address) => /^[a-z]+@[a-z]+\.(com|org|xyz)$/.test(address),
  ensures: (address) => address.endsWith("." + topLevel(address)),
});
