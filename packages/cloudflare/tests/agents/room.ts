// A chat room of template size on the Agents SDK: each message takes the room's next number
// (its state) before a moderation check, is stored and broadcast; a member who leaves, or whose
// connection goes away, is recorded with the close code the room heard.
import { Agent, type Connection, type WSMessage, routeAgentRequest } from "agents";

type Env = { Room: DurableObjectNamespace<Room> };
type State = { next: number };

export class Room extends Agent<Env, State> {
  initialState: State = { next: 1 };

  onStart() {
    this.sql`CREATE TABLE IF NOT EXISTS messages (seq INTEGER NOT NULL, text TEXT NOT NULL)`;
    this.sql`CREATE TABLE IF NOT EXISTS departures (code INTEGER NOT NULL, clean INTEGER NOT NULL)`;
  }

  async onMessage(_connection: Connection, message: WSMessage) {
    const { text } = JSON.parse(String(message)) as { text: string };
    const seq = this.state.next;
    this.setState({ next: seq + 1 });
    const verdict = await fetch("https://moderation.example/check", { method: "POST", body: JSON.stringify({ text }) });
    if (!verdict.ok) return;
    this.sql`INSERT INTO messages (seq, text) VALUES (${seq}, ${text})`;
    this.broadcast(JSON.stringify({ seq, text }));
  }

  onClose(_connection: Connection, code: number, _reason: string, wasClean: boolean) {
    this.sql`INSERT INTO departures (code, clean) VALUES (${code}, ${wasClean ? 1 : 0})`;
  }
}

export default {
  async fetch(request: Request, env: Env) {
    return (await routeAgentRequest(request, env)) ?? new Response("Not found", { status: 404 });
  },
};
