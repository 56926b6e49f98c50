// A wallet kept in a SQLite-backed Durable Object. spend() reads the balance, asks the
// payment network to authorize the charge, and only then writes the new balance: while the
// object awaits that outbound fetch its input gate is open, so a second spend enters, reads
// the same balance, and both charges go through. The second write loses the first debit.
import { DurableObject } from "cloudflare:workers";

interface Env {
  WALLET: DurableObjectNamespace<Wallet>;
}

export class Wallet extends DurableObject<Env> {
  async spend(order: string, amount: number): Promise<{ ok: boolean; balance: number }> {
    const balance = (await this.ctx.storage.get<number>("balance")) ?? 0;
    if (balance < amount) return { ok: false, balance };
    const authorized = await fetch("https://payments.example/authorize", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ order, amount }),
    });
    if (!authorized.ok) return { ok: false, balance };
    await this.ctx.storage.put("balance", balance - amount);
    this.ctx.storage.sql.exec("INSERT INTO spends (order_id, amount) VALUES (?, ?)", order, amount);
    return { ok: true, balance: balance - amount };
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { order, amount } = (await request.json()) as { order: string; amount: number };
    const result = await env.WALLET.getByName("alice").spend(order, amount);
    return Response.json(result, { status: result.ok ? 200 : 402 });
  },
};
