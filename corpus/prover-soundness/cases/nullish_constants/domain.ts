// Rates a deployment may override; null or undefined means "use the default".
const RATE_OVERRIDE: number | null = null;
const MINIMUM_OVERRIDE: number | undefined = undefined;
const DISCOUNT_PERCENT: number | null = 0;
const CURRENCY_OVERRIDE: string | null = null;

const DEFAULT_RATE = 150;

export function hourlyRate(): number {
  return RATE_OVERRIDE ?? DEFAULT_RATE;
}

export function invoiceCents(hours: number): number {
  return hours * (RATE_OVERRIDE ?? DEFAULT_RATE);
}

export function minimumCharge(hours: number): number {
  return Math.max(hours * hourlyRate(), MINIMUM_OVERRIDE ?? 500);
}

// A zero discount is a discount of zero, not "unset".
export function discounted(priceCents: number): number {
  return priceCents - Math.floor((priceCents * (DISCOUNT_PERCENT ?? 10)) / 100);
}

export function currencyLength(extra: number): number {
  return (CURRENCY_OVERRIDE ?? "EUR").length + extra;
}
