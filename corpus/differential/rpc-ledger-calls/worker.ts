// A ledger entrypoint for the rpc differential case: credits, a debit refused past the
// balance (a RangeError the caller sees by name and message), a balance read back, and a
// debit that fails its first call only (the caller's resend then succeeds).

import { WorkerEntrypoint } from "cloudflare:workers";

interface Env {
  DB: D1Database;
}

export class Ledger extends WorkerEntrypoint<Env> {
  async credit(account: string, cents: number): Promise<{ account: string; balance: number }> {
    await this.env.DB.prepare("INSERT INTO entries (account, cents) VALUES (?, ?)").bind(account, cents).run();
    return { account, balance: await this.balance(account) };
  }

  async debit(account: string, cents: number): Promise<{ account: string; balance: number }> {
    const balance = await this.balance(account);
    if (balance < cents) throw new RangeError(`${account} holds ${balance}, not ${cents}`);
    await this.env.DB.prepare("INSERT INTO entries (account, cents) VALUES (?, ?)").bind(account, -cents).run();
    return { account, balance: balance - cents };
  }

  /** Fails the first time a key is seen (a row marks it), then debits: a call the caller resends. */
  async debitOnSecondTry(key: string, account: string, cents: number): Promise<{ account: string; balance: number }> {
    const seen = await this.env.DB.prepare("SELECT COUNT(*) AS n FROM entries WHERE account = ?").bind(`try:${key}`).first<{ n: number }>();
    if (!seen?.n) {
      await this.env.DB.prepare("INSERT INTO entries (account, cents) VALUES (?, 0)").bind(`try:${key}`).run();
      throw new Error(`the first try of ${key} fails`);
    }
    return this.debit(account, cents);
  }

  async balance(account: string): Promise<number> {
    const row = await this.env.DB.prepare("SELECT COALESCE(SUM(cents), 0) AS balance FROM entries WHERE account = ?").bind(account).first<{ balance: number }>();
    return row?.balance ?? 0;
  }
}

export default {
  async fetch(): Promise<Response> {
    return new Response("the ledger is reached over RPC", { status: 404 });
  },
} satisfies ExportedHandler<Env>;
