import { forall } from "eutaxy/spec";
import { quarterOffset, shard } from "./domain.ts";

const id = (x: number) => Number.isInteger(x) && x >= -1_000_000 && x <= 1_000_000;

// False: -1 % 8 is -1 in JavaScript (the remainder takes the dividend's sign).
export const shardIsAnIndex = forall(shard, {
  when: (account) => id(account),
  ensures: (account) => shard(account) >= 0,
});

// False: month -1 is -1, not 3.
export const quarterOffsetNeverNegative = forall(quarterOffset, {
  when: (month) => id(month),
  ensures: (month) => quarterOffset(month) >= 0,
});

// False: the remainder does not wrap a negative month into 0..3 (month -1 gives -1, not 3).
export const quarterOffsetWraps = forall(quarterOffset, {
  when: (month) => id(month) && month < 0,
  ensures: (month) => quarterOffset(month) === month + 4 * Math.ceil(-month / 4),
});

// True: the remainder stays within the divisor either way.
export const shardWithinCount = forall(shard, {
  when: (account) => id(account),
  ensures: (account) => shard(account) > -8 && shard(account) < 8,
});

// True: the remainder of a negative id is never above 0.
export const negativeShardNotAboveZero = forall(shard, {
  when: (account) => id(account) && account < 0,
  ensures: (account) => shard(account) <= 0,
});
