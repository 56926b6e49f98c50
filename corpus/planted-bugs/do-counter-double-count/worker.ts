// A visit counter kept in a SQLite-backed Durable Object. The Worker retries a stub call
// that failed with a retryable error, but the call carries no idempotency key and the
// object records every call it runs: when the call ran and only its answer was lost (an
// ambiguous outcome), the retry counts the same visit twice.
import { DurableObject } from "cloudflare:workers";

interface Env {
  COUNTER: DurableObjectNamespace<VisitCounter>;
}

export class VisitCounter extends DurableObject<Env> {
  async record(visit: string): Promise<number> {
    this.ctx.storage.sql.exec("INSERT INTO hits (visit) VALUES (?)", visit);
    const count = ((await this.ctx.storage.get<number>("count")) ?? 0) + 1;
    await this.ctx.storage.put("count", count);
    return count;
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { visit } = (await request.json()) as { visit: string };
    const counter = env.COUNTER.getByName("site");
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        const count = await counter.record(visit);
        return Response.json({ count });
      } catch (error) {
        if (!(error as { retryable?: boolean }).retryable) throw error;
      }
    }
    return new Response("counter unavailable", { status: 503 });
  },
};
