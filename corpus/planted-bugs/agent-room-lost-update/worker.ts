// A chat room built on the Agents SDK, reached over WebSockets (the Hibernation API the SDK
// uses). Each message gets the room's next sequence number from its state, then is checked by
// a moderation service (an outbound fetch), then is stored and the state moves on. While the
// room awaits the moderation check its input gate is open: a message from another connection
// enters, reads the same number, and two messages are stored under one sequence number.
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
    const verdict = await fetch("https://moderation.example/check", { method: "POST", body: JSON.stringify({ text }) });
    if (!verdict.ok) return;
    this.sql`INSERT INTO messages (seq, text) VALUES (${seq}, ${text})`;
    this.setState({ next: seq + 1 });
  }
}

export default {
  async fetch(request: Request, env: Env) {
    return (await routeAgentRequest(request, env)) ?? new Response("Not found", { status: 404 });
  },
};
