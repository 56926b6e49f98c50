// The fixed twin of workflow-step-double-charge: the charge step is idempotent. The order id is
// the charge's key (its primary key, the insert does nothing when the charge exists), so a step
// run again after a restart that lost its result charges nothing new.
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
      await this.env.DB.prepare("INSERT INTO charges (order_id, cents) VALUES (?, ?) ON CONFLICT (order_id) DO NOTHING").bind(orderId, cents).run();
      return { chargeId: `ch-${orderId}` };
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
