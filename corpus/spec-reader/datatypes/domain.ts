// A record literal typed by its context (a union member by its tag, a nullable record), field reads, a null test, string and array reads.
export type Shape = { kind: "circle"; radius: number } | { kind: "square"; side: number };

export interface Box {
  label: string;
  shape: Shape;
}

export function box(label: string | null, size: number): Box | null {
  if (label === null) return null;
  const shape: Shape = size > 10 ? { kind: "square", side: size } : { kind: "circle", radius: size };
  return { label, shape };
}

export function firstUnit(b: Box, sizes: readonly number[]): number {
  return b.label.length > 0 && sizes.length > 0 ? sizes[0] : b.label.length;
}
