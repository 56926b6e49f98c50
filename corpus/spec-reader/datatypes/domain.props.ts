import { forall } from "eutaxy/spec";
import { box, firstUnit } from "./domain.ts";

export const keepsLabel = forall(box, {
  ensures: (label, size) => label === null || box(label, size) !== null,
});

export const unitIsANumber = forall(firstUnit, {
  ensures: (b, sizes) => firstUnit(b, sizes) === firstUnit(b, sizes) || Number.isNaN(firstUnit(b, sizes)),
});
