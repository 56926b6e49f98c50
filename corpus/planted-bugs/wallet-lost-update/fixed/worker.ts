// The fixed wallet: spend() debits the balance and records the spend before it awaits the
// payment network. Storage operations hold the object's input gate, so no other spend enters
// between the read and the write; a spend whose authorization fails is refunded.
import { DurableObject } from "cloudflare:workers";

interface Env {
  WALLET: DurableObjectNamespace<Wallet>;
}

export class Wallet extends DurableObject<Env> {
  async spend(order: string, amount: number): Promise<{ ok: boolean; balance: number }> {
    const balance = (await this.ctx.storage.get<number>("balance")) ?? 0;
    if (balance < amount) return { ok: false, balance };
    await this.ctx.storage.put("balance", balance - amount);
    this.ctx.storage.sql.exec("INSERT INTO spends (order_id, amount) VALUES (?, ?)", order, amount);
    const authorized = await fetch("https://payments.example/authorize", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ order, amount }),
    });
    if (authorized.ok) return { ok: true, balance: balance - amount };
    this.ctx.storage.sql.exec("DELETE FROM spends WHERE order_id = ?", order);
    const now = (await this.ctx.storage.get<number>("balance")) ?? 0;
    await this.ctx.storage.put("balance", now + amount);
    return { ok: false, balance: now + amount };
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { order, amount } = (await request.json()) as { order: string; amount: number };
    const result = await env.WALLET.getByName("alice").spend(order, amount);
    return Response.json(result, { status: result.ok ? 200 : 402 });
  },
};
