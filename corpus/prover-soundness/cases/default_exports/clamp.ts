// A refund never exceeds what was paid and is never negative.
export default (paidCents: number, askedCents: number): number => Math.min(Math.max(askedCents, 0), paidCents);
