// A product of two doubles: true, but the solver must bit-blast two multipliers to see it.
export function area(width: number, height: number): number {
  return width * height;
}
