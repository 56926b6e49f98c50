// VAT at 20%, rounded to the cent.
const STANDARD_RATE = 0.2;

export function tax(netCents: number): number {
  return Math.round(netCents * STANDARD_RATE);
}
