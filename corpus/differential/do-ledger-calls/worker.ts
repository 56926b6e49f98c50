// A ledger consumer whose accounts are Durable Objects: each message is a stub call into the
// account's object (a SQLite-backed class), which keeps its entries in a SQL table and its
// balance and last operation in key-value storage, and writes an audit row to D1 from inside
// the object. One message asks for a retry on its first delivery, one overdraws and throws
// inside the object until it is dead-lettered, one reads a balance through an awaited RPC
// property. There is no planted bug: the proxied and the raw run must end with the same
// objects, tables and decisions.
import { DurableObject } from "cloudflare:workers";

interface Env {
  DB: D1Database;
  ACCOUNTS: DurableObjectNamespace<Account>;
}

type Job = { account: string; op: "deposit" | "withdraw" | "check"; cents: number; retryFirst?: boolean };

export class Account extends DurableObject<Env> {
  async apply(op: "deposit" | "withdraw", cents: number): Promise<number> {
    const balance = ((await this.ctx.storage.get<number>("balance")) ?? 0) + (op === "deposit" ? cents : -cents);
    if (balance < 0) throw new Error(`overdrawn by ${-balance}`);
    this.ctx.storage.sql.exec("INSERT INTO entries (op, cents, balance) VALUES (?, ?, ?)", op, cents, balance);
    await this.ctx.storage.put({ balance, last: op });
    await this.env.DB.prepare("INSERT INTO audit (account, op, cents) VALUES (?, ?, ?)").bind(this.ctx.id.name ?? "?", op, cents).run();
    return balance;
  }

  get balance(): Promise<number> {
    return this.ctx.storage.get<number>("balance").then((value) => value ?? 0);
  }
}

export default {
  async queue(batch: MessageBatch<Job>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      const job = message.body;
      if (job.retryFirst && message.attempts === 1) {
        message.retry();
        continue;
      }
      const account = env.ACCOUNTS.getByName(job.account);
      if (job.op === "check") {
        const balance = await account.balance;
        await env.DB.prepare("INSERT INTO audit (account, op, cents) VALUES (?, ?, ?)").bind(job.account, "check", balance).run();
      } else {
        await account.apply(job.op, job.cents);
      }
      message.ack();
    }
  },
};
