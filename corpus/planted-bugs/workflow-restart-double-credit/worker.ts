// Sign-ups with a Workflow: the request stores the user and creates one instance per user, which
// credits the welcome bonus, loads the profile in a step, waits a day and sends the welcome in
// another step. The credit is written outside any step: the engine re-runs run() from the start
// whenever it restarts the instance, so any restart after the credit (a crash before a later step
// runs) writes it again.
import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep } from "cloudflare:workers";

interface Env {
  DB: D1Database;
  WELCOME: Workflow;
}

type SignUp = { userId: string; name: string };

export class Welcome extends WorkflowEntrypoint<Env, SignUp> {
  async run(event: WorkflowEvent<SignUp>, step: WorkflowStep) {
    const { userId } = event.payload;
    await this.env.DB.prepare("INSERT INTO credits (user_id, cents) VALUES (?, ?)").bind(userId, 500).run();
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
