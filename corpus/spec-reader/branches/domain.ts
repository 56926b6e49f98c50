// Early returns, else branches, a const shadowing a parameter inside a block, module constants and a call.
const LIMIT = 100;
const HALF = LIMIT / 2;

export function clamp(x: number): number {
  if (x < 0) return 0;
  if (x > LIMIT) {
    return LIMIT;
  } else {
    const x2 = x;
    if (x2 > HALF) {
      const x = x2 - HALF;
      return HALF + x;
    }
  }
  return double(x) / 2;
}

export const double = (y: number): number => y * 2;
