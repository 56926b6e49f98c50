// The fixed visit counter: the visit id is the call's idempotency key. The object records a
// visit once (the table's primary key) and counts only a visit it had not seen, so a retry
// of a call that ran answers the same count without counting again.
import { DurableObject } from "cloudflare:workers";

interface Env {
  COUNTER: DurableObjectNamespace<VisitCounter>;
}

export class VisitCounter extends DurableObject<Env> {
  async record(visit: string): Promise<number> {
    const inserted = this.ctx.storage.sql.exec("INSERT OR IGNORE INTO hits (visit) VALUES (?)", visit).rowsWritten;
    const count = ((await this.ctx.storage.get<number>("count")) ?? 0) + (inserted > 0 ? 1 : 0);
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
