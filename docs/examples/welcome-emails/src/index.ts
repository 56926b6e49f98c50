// Welcome emails: sign-ups arrive over HTTP and wait on a queue; the consumer sends each new
// account one welcome email through the mail API and records it in D1.

export interface Env {
  DB: D1Database;
  SIGNUPS: Queue<SignupMessage>;
  FROM_ADDRESS: string;
  MAIL_API_KEY: string;
}

interface SignupMessage {
  signupId: string;
  email: string;
}

const MAIL_URL = "https://api.mail.example/v1/send";

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (request.method !== "POST" || url.pathname !== "/signups") {
      return new Response("not found", { status: 404 });
    }
    const { email } = await request.json<{ email: string }>();
    const signupId = crypto.randomUUID();
    await env.SIGNUPS.send({ signupId, email });
    return Response.json({ signupId }, { status: 202 });
  },

  async queue(batch: MessageBatch<SignupMessage>, env: Env): Promise<void> {
    for (const message of batch.messages) {
      const { signupId, email } = message.body;
      const sent = await env.DB.prepare("SELECT sent_at FROM welcomes WHERE signup_id = ?").bind(signupId).first();
      if (sent) {
        message.ack();
        continue;
      }
      const reply = await fetch(MAIL_URL, {
        method: "POST",
        headers: { authorization: `Bearer ${env.MAIL_API_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ from: env.FROM_ADDRESS, to: email, template: "welcome" }),
      });
      if (!reply.ok) {
        console.error(`mail API answered ${reply.status} for ${signupId}; retrying`);
        message.retry();
        continue;
      }
      console.log(`welcome email sent for ${signupId}`);
      await env.DB.prepare("INSERT INTO welcomes (signup_id, email, sent_at) VALUES (?, ?, ?)")
        .bind(signupId, email, new Date().toISOString())
        .run();
      message.ack();
    }
  },
} satisfies ExportedHandler<Env, SignupMessage>;
