interface Env {
  DB: D1Database;
}

const seen: string[] = [];

// A standard (TC39) method decorator: (value, context).
function callable<T>(value: T, context: ClassMethodDecoratorContext): T {
  seen.push(String(context.name));
  return value;
}

class Agent {
  @callable
  greet(name: string): string {
    return `hello ${name}`;
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const summary = `${new Agent().greet("standard")} via ${seen.join(",")}`;
    await env.DB.prepare("INSERT INTO built (summary) VALUES (?)").bind(summary).run();
    return new Response("ok");
  },
};
