// Requests past the allowance, billed per request.
const PER_REQUEST_CENTS = 2;

export function overage(used: number, limit: number): number {
  return used > limit ? used - limit : 0;
}

export function overageCents(used: number, limit: number): number {
  return overage(used, limit) * PER_REQUEST_CENTS;
}
