// Durable Objects as the runtime tests see them: a SQLite-backed Ledger that writes to D1
// from inside the object, a key-value Tally reached by unique ids, and the uses the model
// refuses (a jurisdiction, an RPC capability, an object calling another, an unset namespace).
import { DurableObject, RpcTarget } from "cloudflare:workers";

interface Env {
  DB: D1Database;
  LEDGER: DurableObjectNamespace<Ledger>;
  TALLY: DurableObjectNamespace<Tally>;
  UNSET: DurableObjectNamespace<Tally>;
}

class Handle extends RpcTarget {
  ping(): number {
    return 1;
  }
}

export class Ledger extends DurableObject<Env> {
  calls = 0;

  async deposit(account: string, cents: number): Promise<{ calls: number }> {
    this.calls++;
    await this.env.DB.prepare("INSERT INTO deposits (account, cents) VALUES (?, ?)").bind(account, cents).run();
    this.ctx.storage.sql.exec("UPDATE balances SET cents = cents + ? WHERE account = ?", cents, account);
    await this.ctx.storage.put("last", account);
    return { calls: this.calls };
  }

  async capability(): Promise<Handle> {
    return new Handle();
  }

  async nested(): Promise<number> {
    return await this.env.TALLY.getByName("inner").bump();
  }
}

export class Tally extends DurableObject<Env> {
  async bump(): Promise<number> {
    const n = ((await this.ctx.storage.get<number>("n")) ?? 0) + 1;
    await this.ctx.storage.put("n", n);
    return n;
  }

  get total(): Promise<number | undefined> {
    return this.ctx.storage.get<number>("n");
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === "/deposit") return Response.json(await env.LEDGER.getByName("acct").deposit("alice", 5));
    if (path === "/unique") {
      const id = env.TALLY.newUniqueId();
      const n = await env.TALLY.get(id).bump();
      const total = await env.TALLY.get(id).total;
      return Response.json({ name: id.name, n, total });
    }
    if (path === "/jurisdiction") env.LEDGER.jurisdiction("eu");
    if (path === "/capability") await env.LEDGER.getByName("acct").capability();
    if (path === "/nested") await env.LEDGER.getByName("acct").nested();
    if (path === "/unset") env.UNSET.idFromName("x");
    return new Response("not refused", { status: 500 });
  },
};
