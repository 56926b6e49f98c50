// Records, a tagged union, a nullable record and strings: the SMT engine's datatypes.
export interface Account {
  owner: string;
  balance: number;
}

export type Outcome = { kind: "ok"; balance: number } | { kind: "refused"; reason: string };

export function withdraw(account: Account | null, amount: number): Outcome {
  if (account === null) return { kind: "refused", reason: "no account" };
  if (!(amount > 0)) return { kind: "refused", reason: "the amount must be positive" };
  if (amount > account.balance) return { kind: "refused", reason: "not enough for " + account.owner };
  return { kind: "ok", balance: account.balance - amount };
}

export function balanceAfter(outcome: Outcome, before: number): number {
  return outcome.kind === "ok" ? outcome.balance : before;
}

export function reasonOf(outcome: Outcome): string {
  if (outcome.kind === "refused") return outcome.reason;
  return "";
}

export function initial(name: string): string {
  return name.length > 0 ? name[0] : "?";
}
