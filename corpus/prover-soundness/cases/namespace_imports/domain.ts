import * as vat from "./vat.ts";
import * as exempt from "./exempt.ts";

export function gross(netCents: number, isExempt: boolean): number {
  return netCents + (isExempt ? exempt.tax(netCents) : vat.tax(netCents));
}

export function standardGross(netCents: number): number {
  return netCents + vat.tax(netCents);
}
