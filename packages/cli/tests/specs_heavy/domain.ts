// Remainders of a product: true, but Z3 bit-blasts a floating-point remainder and a
// multiplier, and runs for minutes and gigabytes whatever its step limit says.
export function bucket(id: number): number {
  return (id * 7919) % 1000;
}
