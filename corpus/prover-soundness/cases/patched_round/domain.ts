import "./accounting.ts";

const VAT_RATE = 0.2;

export function vatCents(netCents: number): number {
  return Math.round(netCents * VAT_RATE);
}

export function splitShare(totalCents: number, people: number): number {
  return Math.round(totalCents / people);
}
