// Order payments in a Workflow: the request creates one instance per order, which charges the
// order in one step, waits a minute and ships it in another. The charge step is not idempotent:
// when its charge commits but the engine restarts the instance before it persists the step's
// result (crash_after), the step runs again after the restart and charges the order a second time.
import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep } from "cloudflare:workers";

interface Env {
  DB: D1Database;
  PAYMENT: Workflow;
}

type Order = { orderId: string; cents: number };

export class OrderPayment extends WorkflowEntrypoint<Env, Order> {
  async run(event: WorkflowEvent<Order>, step: WorkflowStep) {
    const { orderId, cents } = event.payload;
    const charge = await step.do("charge", async () => {
      const result = await this.env.DB.prepare("INSERT INTO charges (order_id, cents) VALUES (?, ?)").bind(orderId, cents).run();
      return { chargeId: result.meta.last_row_id };
    });
    await step.sleep("hold", "1 minute");
    await step.do("ship", async () => {
      await this.env.DB.prepare("INSERT INTO shipments (charge_id, order_id) VALUES (?, ?) ON CONFLICT (order_id) DO NOTHING")
        .bind(charge.chargeId, orderId)
        .run();
      return { shipped: true };
    });
    return { orderId, chargeId: charge.chargeId };
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const order = (await request.json()) as Order;
    const instance = await env.PAYMENT.create({ id: order.orderId, params: order });
    return Response.json({ instance: instance.id }, { status: 202 });
  },
};
