// The fixed twin of workflow-restart-double-credit: the credit is a step of its own, keyed by the
// user (its primary key; the insert does nothing when the credit exists). A restart replays the
// step's persisted result instead of running it, and a step run again because its result was not
// persisted credits nothing new.
import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep } from "cloudflare:workers";

interface Env {
  DB: D1Database;
  WELCOME: Workflow;
}

type SignUp = { userId: string; name: string };

export class Welcome extends WorkflowEntrypoint<Env, SignUp> {
  async run(event: WorkflowEvent<SignUp>, step: WorkflowStep) {
    const { userId } = event.payload;
    await step.do("credit bonus", async () => {
      await this.env.DB.prepare("INSERT INTO credits (user_id, cents) VALUES (?, ?) ON CONFLICT (user_id) DO NOTHING").bind(userId, 500).run();
      return { cents: 500 };
    });
    const profile = await step.do("load profile", async () => {
      const user = await this.env.DB.prepare("SELECT name FROM users WHERE id = ?").bind(userId).first<{ name: string }>();
      return { name: user?.name ?? "friend" };
    });
    await step.sleep("a day later", "1 day");
    const sent = await step.do("send welcome", async () => ({ to: profile.name, text: `Welcome, ${profile.name}: 5.00 is on us.` }));
    return { userId, welcomed: sent.to };
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const signUp = (await request.json()) as SignUp;
    await env.DB.prepare("INSERT INTO users (name, id) VALUES (?, ?) ON CONFLICT (id) DO NOTHING").bind(signUp.name, signUp.userId).run();
    const instance = await env.WELCOME.create({ id: signUp.userId, params: signUp });
    return Response.json({ instance: instance.id }, { status: 201 });
  },
};
