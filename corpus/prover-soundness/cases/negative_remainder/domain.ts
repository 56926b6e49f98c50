const SHARDS = 8;
const QUARTERS = 4;

// Which shard an account lives on; refunds carry negative ids.
export function shard(accountId: number): number {
  return accountId % SHARDS;
}

// The quarter a month number falls in, counted from 0; months before the epoch are negative.
export function quarterOffset(month: number): number {
  return month % QUARTERS;
}
