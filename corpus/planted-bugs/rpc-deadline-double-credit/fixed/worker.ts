// The fixed twin of ../worker.ts: a credit is written once per transfer.
//
// transfer_id is unique and the insert does nothing for a transfer already
// credited, so a resend after the caller's deadline credits nothing again.

import { WorkerEntrypoint } from "cloudflare:workers";

interface Env {
  DB: D1Database;
}

export class Ledger extends WorkerEntrypoint<Env> {
  async credit(transferId: string, accountId: string, amountCents: number): Promise<{ balanceCents: number }> {
    await this.env.DB.prepare("INSERT INTO entries (transfer_id, account_id, amount_cents) VALUES (?, ?, ?) ON CONFLICT(transfer_id) DO NOTHING")
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
