// The Workflows fidelity case (test_workflow_engine_fidelity.py): POST /create creates an instance
// with the request's id and params, POST /send/<id> sends it an event, GET /status/<id> answers its status. The Workflow's run() does
// what its payload's mode asks, each mode an engine rule whose persisted step results, output and
// status the model must give as Miniflare's local engine does. Nothing reads the clock or
// randomness, so both engines see the same inputs.
import { WorkflowEntrypoint } from "cloudflare:workers";

export class Fidelity extends WorkflowEntrypoint {
  async run(event, step) {
    const { mode, items = [] } = event.payload;
    switch (mode) {
      case "steps": {
        const totals = await step.do("sum", async () => ({ total: items.reduce((sum, item) => sum + item, 0), count: items.length }));
        const labels = await step.do("label", async () => items.map((item) => `item-${item}`));
        const again = await step.do("sum", async () => ({ total: totals.total * 2 }));
        return { totals, labels, again, nothing: await step.do("nothing", async () => null) };
      }
      case "flaky": {
        const value = await step.do("flaky", { retries: { limit: 2, delay: 10, backoff: "constant" } }, async (ctx) => {
          if (ctx.attempt === 1) throw new Error("first attempt fails");
          return { attempt: ctx.attempt };
        });
        return { value };
      }
      case "sleep": {
        const before = await step.do("before", async () => "before");
        await step.sleep("pause", 20);
        const after = await step.do("after", async () => "after");
        return [before, after];
      }
      case "spent": {
        await step.do("ok", async () => 1);
        return await step.do("always fails", { retries: { limit: 1, delay: 10, backoff: "constant" } }, async () => {
          throw new Error("still failing");
        });
      }
      case "caught": {
        try {
          await step.do("fails", { retries: { limit: 0, delay: 10, backoff: "constant" } }, async () => {
            throw new TypeError("bad input");
          });
        } catch (error) {
          return { caught: error.message, name: error.name };
        }
        return null;
      }
      case "wait": {
        const approval = await step.waitForEvent("approval", { type: "approve", timeout: "1 hour" });
        const done = await step.do("after approval", async () => ({ by: approval.payload.by }));
        return { approval: approval.payload, type: approval.type, done };
      }
      case "throws": {
        await step.do("first", async () => ({ ok: true }));
        throw new Error("run() gave up");
      }
      default:
        return { mode };
    }
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/create") {
      const { id, params } = await request.json();
      const instance = await env.FLOW.create({ id, params });
      return Response.json({ id: instance.id });
    }
    if (url.pathname.startsWith("/send/")) {
      const { type, payload } = await request.json();
      await (await env.FLOW.get(url.pathname.slice("/send/".length))).sendEvent({ type, payload });
      return Response.json({ sent: type });
    }
    if (url.pathname.startsWith("/status/")) {
      const instance = await env.FLOW.get(url.pathname.slice("/status/".length));
      return Response.json(await instance.status());
    }
    return new Response("not found", { status: 404 });
  },
};
