// An Agent of template size, as the Agents SDK documents one: state, this.sql, a schedule,
// a @callable method (standard decorators), routeAgentRequest, no AI binding.
import { Agent, callable, getAgentByName, routeAgentRequest } from "agents";

type Env = { Counter: DurableObjectNamespace<Counter> };
type State = { count: number; last: string | null };

export class Counter extends Agent<Env, State> {
  initialState: State = { count: 0, last: null };

  onStart() {
    this.sql`CREATE TABLE IF NOT EXISTS visits (id INTEGER PRIMARY KEY AUTOINCREMENT, who TEXT NOT NULL)`;
  }

  @callable()
  async increment(who: string) {
    this.sql`INSERT INTO visits (who) VALUES (${who})`;
    this.setState({ count: this.state.count + 1, last: who });
    await this.schedule(60, "tally", { who });
    return this.state.count;
  }

  async tally(payload: { who: string }) {
    const rows = this.sql<{ n: number }>`SELECT COUNT(*) AS n FROM visits`;
    this.setState({ ...this.state, last: `tallied ${payload.who}: ${rows[0].n}` });
  }

  async onRequest(request: Request) {
    if (request.method === "POST") {
      const { who } = (await request.json()) as { who: string };
      return Response.json({ count: await this.increment(who) });
    }
    return Response.json(this.state);
  }
}

export default {
  async fetch(request: Request, env: Env) {
    if (new URL(request.url).pathname === "/direct") {
      const agent = await getAgentByName(env.Counter, "c-1");
      return Response.json({ count: await agent.increment("direct") });
    }
    return (await routeAgentRequest(request, env)) ?? new Response("Not found", { status: 404 });
  },
};
