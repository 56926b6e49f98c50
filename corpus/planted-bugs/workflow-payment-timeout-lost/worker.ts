// Checkout with a Workflow: POST /orders creates one instance per order, which waits for the
// payment provider's webhook (POST /payments, delivered to it as a "payment" event) and then
// records the paid order. The wait gives up after an hour and drops the order. The provider
// resends a webhook it got no answer for two hours later: when the first delivery is lost (a
// crash before the event reached the instance), the resend finds the instance already expired,
// and the paid order is never recorded.
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
      await step.waitForEvent("payment", { type: "payment", timeout: "1 hour" });
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
