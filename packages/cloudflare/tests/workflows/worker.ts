// A Worker that drives the Workflow binding's model through its API: POST /create creates an
// instance (twice with "again"), GET /status/<id> answers its status, POST /send/<id>/<type> sends it an
// event, GET /missing gets an unknown id. The Workflow's run() does what its payload's mode asks, one engine rule each.
import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep } from "cloudflare:workers";

interface Env {
  FLOW: Workflow;
  REMOTE: Workflow;
}

type Params = { mode: string };

export class Flow extends WorkflowEntrypoint<Env, Params> {
  label = "flow";

  async run(event: WorkflowEvent<Params>, step: WorkflowStep) {
    switch (event.payload.mode) {
      case "retry-then-fail":
        return await step.do("flaky", { retries: { limit: 2, delay: "1 second", backoff: "linear" } }, async () => {
          throw new Error(`boom at ${Date.now()}`);
        });
      case "non-retryable":
        return await step.do("fatal", async () => {
          const error = new Error("nope");
          error.name = "NonRetryableError";
          throw error;
        });
      case "caught":
        try {
          await step.do("fail", { retries: { limit: 0, delay: 1, backoff: "constant" } }, async () => {
            throw new Error("expected");
          });
        } catch (error) {
          return { caught: (error as Error).message, label: this.label };
        }
        return { caught: null };
      case "sleep-until": {
        const start = Date.now();
        await step.sleepUntil("later", new Date(start + 5000));
        return { slept: Date.now() - start };
      }
      case "event":
        return { name: event.workflowName, id: event.instanceId, at: event.timestamp.toISOString(), payload: event.payload };
      case "wait":
        try {
          const approval = await step.waitForEvent<{ by: string }>("approval", { type: "approve", timeout: "1 hour" });
          const after = await step.do("after approval", async () => ({ by: approval.payload.by }));
          return { approvedBy: after.by, waitedMs: Date.now() - event.timestamp.getTime() };
        } catch (error) {
          return { timedOut: (error as Error).name, waitedMs: Date.now() - event.timestamp.getTime() };
        }
      case "steps": {
        const first = await step.do("first", async () => 1);
        const second = await step.do("second", async () => first + 1);
        return { third: await step.do("third", async () => second + 1) };
      }
      case "batch":
        await this.env.FLOW.createBatch([{ id: "x" }]);
        return null;
      default:
        return { mode: event.payload.mode };
    }
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/create") {
      const { id, params, again, send } = (await request.json()) as { id?: string; params?: Params; again?: boolean; send?: string };
      const instance = await env.FLOW.create(id === undefined ? { params } : { id, params });
      if (send) await instance.sendEvent({ type: send, payload: { by: "early" } });
      if (!again) return Response.json({ id: instance.id });
      try {
        await env.FLOW.create({ id: instance.id, params });
        return Response.json({ again: "created" });
      } catch (error) {
        return Response.json({ again: (error as Error).message });
      }
    }
    if (url.pathname.startsWith("/status/")) {
      const instance = await env.FLOW.get(url.pathname.slice("/status/".length));
      return Response.json(await instance.status());
    }
    if (url.pathname.startsWith("/send/")) {
      const [id, type] = url.pathname.slice("/send/".length).split("/");
      const body = (await request.json()) as { by: string };
      try {
        await (await env.FLOW.get(id)).sendEvent({ type, payload: body });
        return Response.json({ sent: type });
      } catch (error) {
        return Response.json({ refused: (error as Error).message }, { status: 409 });
      }
    }
    if (url.pathname === "/missing") {
      try {
        await env.FLOW.get("nobody");
        return Response.json({ found: true });
      } catch (error) {
        return Response.json({ error: (error as Error).message });
      }
    }
    if (url.pathname === "/remote") {
      await env.REMOTE.create({});
      return new Response("created");
    }
    return new Response("not found", { status: 404 });
  },
};
