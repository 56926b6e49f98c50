// The fixed deferred billing: the order id is the charge's idempotency key (the table's
// primary key, the insert ignoring a second one), so a retried alarm that finds the order still
// stored charges nothing new.
import { DurableObject } from "cloudflare:workers";

interface Env {
  DB: D1Database;
  BILLING: DurableObjectNamespace<Billing>;
}

type Order = { orderId: string; cents: number };

export class Billing extends DurableObject<Env> {
  async schedule(order: Order): Promise<void> {
    await this.ctx.storage.put("order", order);
    await this.ctx.storage.setAlarm(Date.now() + 1000);
  }

  async alarm(): Promise<void> {
    const order = await this.ctx.storage.get<Order>("order");
    if (!order) return;
    await this.env.DB.prepare("INSERT OR IGNORE INTO charges (order_id, cents) VALUES (?, ?)").bind(order.orderId, order.cents).run();
    await this.ctx.storage.delete("order");
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const order = (await request.json()) as Order;
    await env.BILLING.getByName(order.orderId).schedule(order);
    return new Response("scheduled", { status: 202 });
  },
};
