// The fixed twin of workflow-payment-timeout-lost: the wait lasts a day, longer than the provider's
// resend window (two hours), so a resent webhook still finds the instance waiting and the paid
// order is recorded.
import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep } from "cloudflare:workers";

interface Env {
  DB: D1Database;
  CHECKOUT: Workflow;
}

type Order = { orderId: string; paymentRef: string; cents: number };

export class Checkout extends WorkflowEntrypoint<Env, Order> {
  async run(event: WorkflowEvent<Order>, step: WorkflowStep) {
    const { orderId, paymentRef, cents } = event.payload;
    try {
      await step.waitForEvent("payment", { type: "payment", timeout: "1 day" });
    } catch {
      return { orderId, status: "expired" };
    }
    await step.do("record paid order", async () => {
      await this.env.DB.prepare("INSERT INTO payments (payment_ref, cents) VALUES (?, ?) ON CONFLICT (payment_ref) DO NOTHING").bind(paymentRef, cents).run();
      return { recorded: true };
    });
    return { orderId, status: "paid" };
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const body = (await request.json()) as Order;
    if (url.pathname === "/orders") {
      await env.DB.prepare("INSERT INTO orders (order_id, cents) VALUES (?, ?) ON CONFLICT (order_id) DO NOTHING").bind(body.orderId, body.cents).run();
      try {
        await env.CHECKOUT.create({ id: body.orderId, params: body });
      } catch (error) {
        if ((error as Error).message !== "instance.already_exists") throw error;
      }
      return new Response("order placed", { status: 201 });
    }
    const instance = await env.CHECKOUT.get(body.orderId);
    await instance.sendEvent({ type: "payment", payload: { orderId: body.orderId } });
    return new Response("payment noted");
  },
};
