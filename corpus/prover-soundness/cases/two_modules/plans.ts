// Monthly request allowance per plan tier.
const STARTER_LIMIT = 1000;
const TEAM_LIMIT = 10000;

export function planLimit(tier: number): number {
  return tier >= 2 ? TEAM_LIMIT : STARTER_LIMIT;
}

export function planPriceCents(tier: number): number {
  return tier >= 2 ? 4900 : 900;
}
