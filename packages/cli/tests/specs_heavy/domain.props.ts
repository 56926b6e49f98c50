import { forall } from "eutaxy/spec";
import { bucket } from "./domain.ts";

export const bucketIsAResidue = forall(bucket, {
  when: (id) => Number.isInteger(id) && id >= 0 && id < 1e12,
  ensures: (id) => bucket(id) >= 0 && bucket(id) < 1000 && bucket(bucket(id)) === (bucket(id) * 7919) % 1000,
});
