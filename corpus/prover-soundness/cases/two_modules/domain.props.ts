import { forall } from "eutaxy/spec";
import { overage, overageCents } from "./usage.ts";
import { planLimit, planPriceCents } from "./plans.ts";
import { monthlyBill, netPayout } from "./domain.ts";

const requests = (x: number) => Number.isInteger(x) && x >= 0 && x <= 100_000_000;
const tier = (t: number) => t === 1 || t === 2;

// True: a claim relating functions of two modules (usage.ts and plans.ts).
export const overageNeverAboveUsage = forall(overage, {
  when: (used, limit) => requests(used) && requests(limit),
  ensures: (used, limit) => overage(used, planLimit(2)) <= used && overage(used, planLimit(1)) >= overage(used, planLimit(2)),
});

// True: the bill is at least the plan's price, through three modules.
export const billAtLeastPlanPrice = forall(monthlyBill, {
  when: (t, used) => tier(t) && requests(used),
  ensures: (t, used) => monthlyBill(t, used) >= planPriceCents(t),
});

// True: within the allowance, the bill is the plan's price.
export const withinAllowanceIsPlanPrice = forall(monthlyBill, {
  when: (t, used) => tier(t) && requests(used) && used <= planLimit(t),
  ensures: (t, used) => monthlyBill(t, used) === planPriceCents(t),
});

// False: a starter plan pays overage from 1001 requests, so the team plan's 10000 is not free for it.
export const tenThousandAlwaysFree = forall(monthlyBill, {
  when: (t, used) => tier(t) && requests(used) && used <= 10000,
  ensures: (t, used) => monthlyBill(t, used) === planPriceCents(t),
});

// False: two cents a request, not one.
export const overageIsOneCentEach = forall(overageCents, {
  when: (used, limit) => requests(used) && requests(limit),
  ensures: (used, limit) => overageCents(used, limit) === overage(used, limit),
});

// True: the parameter named fee is the number passed in.
export const payoutTakesTheFee = forall(netPayout, {
  when: (gross, fee) => requests(gross) && requests(fee),
  ensures: (gross, fee) => netPayout(gross, fee) + fee === gross,
});
