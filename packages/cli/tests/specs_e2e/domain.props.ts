import { forall, total } from "eutaxy/spec";
import { decideRefund, reference } from "./domain.ts";

// True: TESTED, and it also held on every call the simulator made.
export const withinTotal = forall(decideRefund, {
  when: (order, amount) => 0 <= order.refundedCents && order.refundedCents <= order.totalCents,
  ensures: (order, amount) => decideRefund(order, amount).refunded <= order.totalCents,
});

// False only on long references: drawn strings are short, the second request's is not.
export const shortReferences = forall(reference, {
  ensures: (text) => reference(text).length <= 40,
});

// A checksum on the first character no guard steers toward, so only the first request's
// reference is inside the claim.
export const fortyStaysForty = forall(reference, {
  when: (text) => text.length === 40 && text.trim() === text && (text.charCodeAt(0) * 31) % 9973 === 4242,
  ensures: (text) => reference(text).length === 40,
});

export const terminates = total(decideRefund);
