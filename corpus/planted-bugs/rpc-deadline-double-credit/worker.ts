// A ledger entrypoint with a planted bug: a resent credit is written twice.
//
// Other Workers call Ledger.credit() over a service binding and give up waiting
// after a deadline, then call again. When the credit was written but its answer
// came too late for the caller (the ambiguous outcome: the caller counted it
// failed), the resend inserts a second entry for the same transfer.

import { WorkerEntrypoint } from "cloudflare:workers";

interface Env {
  DB: D1Database;
}

export class Ledger extends WorkerEntrypoint<Env> {
  async credit(transferId: string, accountId: string, amountCents: number): Promise<{ balanceCents: number }> {
    await this.env.DB.prepare("INSERT INTO entries (transfer_id, account_id, amount_cents) VALUES (?, ?, ?)")
      .bind(transferId, accountId, amountCents)
      .run();
    const row = await this.env.DB.prepare("SELECT SUM(amount_cents) AS balance FROM entries WHERE account_id = ?")
      .bind(accountId)
      .first<{ balance: number }>();
    return { balanceCents: row?.balance ?? 0 };
  }
}

export default {
  async fetch(): Promise<Response> {
    return new Response("the ledger is reached over RPC (the Ledger entrypoint)", { status: 404 });
  },
} satisfies ExportedHandler<Env>;
