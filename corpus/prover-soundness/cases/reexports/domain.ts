import { giftFee, shippingFee } from "./index.ts";

export { shippingFee as deliveryFee } from "./index.ts";

export function extras(orderCents: number, wrapped: boolean): number {
  return shippingFee(orderCents) + (wrapped ? giftFee(orderCents) : 0);
}
