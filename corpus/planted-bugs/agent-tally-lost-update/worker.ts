// A tally Agent: it accepts amounts, and a schedule folds them into its total and tells a ledger.
// The planted bug: the fold marks the entries tallied, then awaits the ledger, and only then
// records the tally. A crash at the ledger call loses the update: the retried schedule finds
// every entry already marked and tallies nothing.
import { Agent, routeAgentRequest } from "agents";

type Env = { Tally: DurableObjectNamespace<Tally> };
type State = { total: number };

export class Tally extends Agent<Env, State> {
  initialState: State = { total: 0 };

  onStart() {
    this.sql`CREATE TABLE IF NOT EXISTS entries (id INTEGER PRIMARY KEY AUTOINCREMENT, amount INTEGER NOT NULL, tallied INTEGER NOT NULL DEFAULT 0)`;
    this.sql`CREATE TABLE IF NOT EXISTS tallies (entry_id INTEGER PRIMARY KEY, amount INTEGER NOT NULL)`;
  }

  async onRequest(request: Request) {
    const { amount } = (await request.json()) as { amount: number };
    this.sql`INSERT INTO entries (amount) VALUES (${amount})`;
    await this.schedule(10, "fold");
    return Response.json({ accepted: amount });
  }

  async fold() {
    const pending = this.sql<{ id: number; amount: number }>`SELECT id, amount FROM entries WHERE tallied = 0 ORDER BY id`;
    if (pending.length === 0) return;
    const sum = pending.reduce((total, entry) => total + entry.amount, 0);
    this.sql`UPDATE entries SET tallied = 1 WHERE tallied = 0`;
    await fetch("https://ledger.example/totals", { method: "POST", body: JSON.stringify({ add: sum }) });
    for (const entry of pending) this.sql`INSERT INTO tallies (entry_id, amount) VALUES (${entry.id}, ${entry.amount})`;
    this.setState({ total: this.state.total + sum });
  }
}

export default {
  async fetch(request: Request, env: Env) {
    return (await routeAgentRequest(request, env)) ?? new Response("Not found", { status: 404 });
  },
};
