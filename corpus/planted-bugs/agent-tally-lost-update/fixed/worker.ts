// A tally Agent: it accepts amounts, answers at once, and credits each amount to a ledger and to
// its running total in work after the answer; a schedule reports the total later.
// Fixed: the credit tells the ledger first, then reads and writes the total with no await in
// between (one synchronous block the input gate keeps whole), so no other credit can come between.
import { Agent, routeAgentRequest } from "agents";

type Env = { Tally: DurableObjectNamespace<Tally> };
type State = { total: number };

export class Tally extends Agent<Env, State> {
  initialState: State = { total: 0 };

  onStart() {
    this.sql`CREATE TABLE IF NOT EXISTS entries (id INTEGER PRIMARY KEY AUTOINCREMENT, amount INTEGER NOT NULL)`;
    this.sql`CREATE TABLE IF NOT EXISTS totals (name TEXT PRIMARY KEY, total INTEGER NOT NULL)`;
    this.sql`INSERT OR IGNORE INTO totals (name, total) VALUES ('all', 0)`;
    this.sql`CREATE TABLE IF NOT EXISTS reports (id INTEGER PRIMARY KEY AUTOINCREMENT, total INTEGER NOT NULL)`;
  }

  async onRequest(request: Request) {
    const { amount } = (await request.json()) as { amount: number };
    this.sql`INSERT INTO entries (amount) VALUES (${amount})`;
    await this.schedule(3600, "report");
    // The credit goes on after the answer.
    this.ctx.waitUntil(this.credit(amount));
    return Response.json({ accepted: amount });
  }

  async credit(amount: number) {
    await fetch("https://ledger.example/credits", { method: "POST", body: JSON.stringify({ amount }) });
    const [{ total }] = this.sql<{ total: number }>`SELECT total FROM totals WHERE name = 'all'`;
    this.sql`UPDATE totals SET total = ${total + amount} WHERE name = 'all'`;
    this.setState({ total: total + amount });
  }

  async report() {
    this.sql`INSERT INTO reports (total) VALUES (${this.state.total})`;
  }
}

export default {
  async fetch(request: Request, env: Env) {
    return (await routeAgentRequest(request, env)) ?? new Response("Not found", { status: 404 });
  },
};
