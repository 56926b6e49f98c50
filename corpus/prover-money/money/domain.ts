const FEE_RATE = 0.029;
const FEE_FIXED = 30;
const FREE_QUOTA = 1000;

export function lineTotal(unitCents: number, quantity: number): number {
  return unitCents * quantity;
}

export function orderTotal(subtotal: number, discount: number): number {
  return Math.max(0, subtotal - discount);
}

export function credit(balance: number, amount: number): number {
  return amount > 0 ? balance + amount : balance;
}

export function cardFee(amount: number): number {
  return amount <= 0 ? 0 : Math.round(amount * FEE_RATE) + FEE_FIXED;
}

export function prorate(monthly: number, daysUsed: number, daysInMonth: number): number {
  return Math.floor((monthly * daysUsed) / daysInMonth);
}

export function overQuota(used: number): number {
  return used > FREE_QUOTA ? used - FREE_QUOTA : 0;
}

export function clampRefund(paid: number, asked: number): number {
  return Math.min(Math.max(asked, 0), paid);
}

export function tier(monthlySpend: number): number {
  return monthlySpend >= 10000 ? 3 : monthlySpend >= 1000 ? 2 : 1;
}

export function remainingQuota(limit: number, used: number): number {
  return used >= limit ? 0 : limit - used;
}

export function splitCents(total: number, parts: number): number {
  return Math.floor(total / parts);
}
