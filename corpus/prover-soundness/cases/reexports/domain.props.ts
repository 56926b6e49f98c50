import { forall } from "eutaxy/spec";
import { deliveryFee, extras } from "./domain.ts";
import { fee, giftFee, handling, shippingFee } from "./index.ts";

const cents = (x: number) => Number.isInteger(x) && x >= 0 && x <= 10_000_000;

// False: shipping is free from 5000 on (gift's fee, the other `fee`, is always 350).
export const shippingAlwaysCharged = forall(shippingFee, {
  when: (order) => cents(order),
  ensures: (order) => shippingFee(order) > 0,
});

// False through a second re-export under another name.
export const deliveryAlwaysCharged = forall(deliveryFee, {
  when: (order) => cents(order),
  ensures: (order) => deliveryFee(order) > 0,
});

// False through `export *`: the barrel's `fee` is shipping's.
export const starFeeIsFlat = forall(fee, {
  when: (order) => cents(order),
  ensures: (order) => fee(order) === 350,
});

// True of gift's fee through the barrel (false of shipping's).
export const giftFeeIsFlat = forall(giftFee, {
  when: (order) => cents(order),
  ensures: (order) => giftFee(order) === 350,
});

// True of shipping's fee through `export *`, false of gift's.
export const starFeeAtMost499 = forall(fee, {
  when: (order) => cents(order),
  ensures: (order) => fee(order) <= 499 && fee(order) !== 350,
});

// True: wrapping adds gift's 350 to shipping's fee; a claim reaching three modules.
export const wrappingAdds350 = forall(extras, {
  when: (order, wrapped) => cents(order) && wrapped,
  ensures: (order, wrapped) => extras(order, wrapped) === shippingFee(order) + 350,
});

// False: handling is 0 on an empty order.
export const handlingAlwaysCharged = forall(handling, {
  when: (order) => cents(order),
  ensures: (order) => handling(order) === 150,
});
