export interface Version {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

export function compare(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

export function weighted(ratios: readonly number[]): number {
  return ratios.reduce((sum, r) => sum + r, 0);
}

export function bump(version: string): string {
  const [major, minor, patch] = version.split(".").map(Number);
  return `${major}.${minor}.${patch + 1}`;
}
