import { callable, callables } from "@lib/callable";

interface Env {
  DB: D1Database;
}

class Agent {
  @callable
  greet(name: string): string {
    return `hello ${name}`;
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const summary = `${new Agent().greet("legacy")} via ${callables.join(",")}`;
    await env.DB.prepare("INSERT INTO built (summary) VALUES (?)").bind(summary).run();
    return new Response("ok");
  },
};
