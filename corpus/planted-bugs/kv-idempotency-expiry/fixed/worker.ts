// Charges deduplicated by idempotency key, the keys remembered in KV for a
// day (expirationTtl 86400), as long as the client keeps resending (the fix):
// a resend an hour later finds the key and is not charged again.

interface Env {
  IDEMPOTENCY: KVNamespace;
  LEDGER: KVNamespace;
}

/** How long an idempotency key is remembered, in seconds. */
const REMEMBER_S = 86_400;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const key = request.headers.get("Idempotency-Key");
    const { order, cents } = await request.json<{ order: string; cents: number }>();
    if (key === null) return new Response("an Idempotency-Key header is required", { status: 400 });
    if ((await env.IDEMPOTENCY.get(key)) !== null) return new Response("already charged");
    // The key is claimed before the charge, so a crash between the two loses the charge rather than doubling it.
    await env.IDEMPOTENCY.put(key, order, { expirationTtl: REMEMBER_S });
    // One ledger entry per charge, named by its virtual time; its value is the order charged.
    await env.LEDGER.put(`${order}@${Date.now()}`, order, { metadata: { cents } });
    return new Response("charged");
  },
};
