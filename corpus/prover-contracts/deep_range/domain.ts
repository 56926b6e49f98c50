// A fee schedule with a sign error in one middle band.
export function fee(cents: number): number {
  if (cents < 1000) return 50;
  if (cents >= 3000 && cents < 7000) return 100 - cents / 20;
  return Math.round(cents / 100);
}
