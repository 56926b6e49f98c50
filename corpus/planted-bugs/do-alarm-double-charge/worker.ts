// Deferred billing in a Durable Object: an order is stored and charged by the object's alarm
// a second later. The alarm charges before it forgets the order, and nothing makes the charge
// idempotent: a crash after the charge committed (the object reset before it deleted the
// order) makes Cloudflare retry the alarm, which charges the same order again.
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
    await this.env.DB.prepare("INSERT INTO charges (order_id, cents) VALUES (?, ?)").bind(order.orderId, order.cents).run();
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
