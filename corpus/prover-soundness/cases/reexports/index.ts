// The pricing barrel: one name per fee, as a barrel file writes them.
export { fee as giftFee } from "./gift.ts";
export { fee as shippingFee } from "./shipping.ts";
export * from "./shipping.ts";
