import { forall } from "eutaxy/spec";
import * as vat from "./vat.ts";
import * as exempt from "./exempt.ts";
import { gross, standardGross } from "./domain.ts";

const cents = (x: number) => Number.isInteger(x) && x >= 0 && x <= 10_000_000;

// False: exempt goods pay no tax (vat's tax is 20% of a positive net).
export const exemptIsTaxed = forall(exempt.tax, {
  when: (net) => cents(net) && net >= 10,
  ensures: (net) => exempt.tax(net) > 0,
});

// False: VAT is not zero (exempt's tax is).
export const vatIsZero = forall(vat.tax, {
  when: (net) => cents(net),
  ensures: (net) => vat.tax(net) === 0,
});

// False through a body's namespace call: the standard gross is above the net from 3 cents on.
export const standardGrossIsNet = forall(standardGross, {
  when: (net) => cents(net),
  ensures: (net) => standardGross(net) === net,
});

// True: exempt gross is the net.
export const exemptGrossIsNet = forall(gross, {
  when: (net, isExempt) => cents(net) && isExempt,
  ensures: (net, isExempt) => gross(net, isExempt) === net,
});

// True: a claim over both namespaces, VAT never below the exempt tax.
export const vatAtLeastExempt = forall(vat.tax, {
  when: (net) => cents(net),
  ensures: (net) => vat.tax(net) >= exempt.tax(net),
});
