// Charges deduplicated by idempotency key, the keys remembered in KV for an
// hour (expirationTtl 3600). A client that resends a charge an hour later, as
// a client retrying for a day does, finds the key expired and is charged
// twice (the bug). The resend needs a request an hour after the first, which
// the http drive places with at_ms.

interface Env {
  IDEMPOTENCY: KVNamespace;
  LEDGER: KVNamespace;
}

/** How long an idempotency key is remembered, in seconds. */
const REMEMBER_S = 3600;

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
