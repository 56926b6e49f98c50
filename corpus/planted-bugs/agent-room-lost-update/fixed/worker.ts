// The fixed chat room: each message takes the room's next sequence number and moves the state
// on with nothing awaited between the two, before it awaits the moderation check, so a message
// entering meanwhile takes the next number. A message the check refuses leaves a gap in the
// numbers, never a number twice.
import { Agent, type Connection, type WSMessage, routeAgentRequest } from "agents";

type Env = { Room: DurableObjectNamespace<Room> };
type State = { next: number };

export class Room extends Agent<Env, State> {
  initialState: State = { next: 1 };

  onStart() {
    this.sql`CREATE TABLE IF NOT EXISTS messages (seq INTEGER NOT NULL, text TEXT NOT NULL)`;
  }

  async onMessage(_connection: Connection, message: WSMessage) {
    const { text } = JSON.parse(String(message)) as { text: string };
    const seq = this.state.next;
    this.setState({ next: seq + 1 });
    const verdict = await fetch("https://moderation.example/check", { method: "POST", body: JSON.stringify({ text }) });
    if (!verdict.ok) return;
    this.sql`INSERT INTO messages (seq, text) VALUES (${seq}, ${text})`;
  }
}

export default {
  async fetch(request: Request, env: Env) {
    return (await routeAgentRequest(request, env)) ?? new Response("Not found", { status: 404 });
  },
};
