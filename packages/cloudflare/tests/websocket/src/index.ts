// A chat room over WebSockets, written as the Durable Objects documentation shows it
// (the Hibernation API): each room is an object; a member joins with ?name=, its socket is
// tagged with the name and carries its name and message count as its attachment; a message is
// stored in the room's history and broadcast to every member; "/leave" closes the member's socket.
import { DurableObject } from "cloudflare:workers";

interface Env {
  ROOMS: DurableObjectNamespace<ChatRoom>;
  ECHO: DurableObjectNamespace<StandardEcho>;
}

type Member = { name: string; sent: number };

export class ChatRoom extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS history (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, text TEXT)");
  }

  async fetch(request: Request): Promise<Response> {
    if (request.headers.get("Upgrade") !== "websocket") return new Response("expected a WebSocket", { status: 426 });
    const name = new URL(request.url).searchParams.get("name") ?? "anonymous";
    const pair = new WebSocketPair();
    const [client, server] = Object.values(pair);
    this.ctx.acceptWebSocket(server, [name]);
    server.serializeAttachment({ name, sent: 0 } satisfies Member);
    server.send(JSON.stringify({ welcome: name, members: this.ctx.getWebSockets().length }));
    return new Response(null, { status: 101, webSocket: client });
  }

  async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const member = ws.deserializeAttachment() as Member;
    const { text } = JSON.parse(String(message)) as { text: string };
    if (text === "/leave") {
      ws.close(1000, `${member.name} left`);
      return;
    }
    this.ctx.storage.sql.exec("INSERT INTO history (name, text) VALUES (?, ?)", member.name, text);
    ws.serializeAttachment({ ...member, sent: member.sent + 1 });
    for (const other of this.ctx.getWebSockets()) {
      if (other.readyState === WebSocket.OPEN) other.send(JSON.stringify({ from: member.name, text }));
    }
  }

  async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    ws.close(code, reason);
  }
}

// The standard API (accept() and an event listener), which the websocket drive does not model.
export class StandardEcho extends DurableObject<Env> {
  async fetch(): Promise<Response> {
    const [client, server] = Object.values(new WebSocketPair());
    server.accept();
    server.addEventListener("message", (event) => server.send(String(event.data)));
    return new Response(null, { status: 101, webSocket: client });
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/echo") return env.ECHO.getByName("e").fetch(request);
    if (url.pathname === "/self") {
      const [client, server] = Object.values(new WebSocketPair());
      server.accept();
      return new Response(null, { status: 101, webSocket: client });
    }
    const match = url.pathname.match(/^\/rooms\/([\w-]+)$/);
    if (!match) return new Response("not found", { status: 404 });
    return env.ROOMS.getByName(match[1]).fetch(request);
  },
} satisfies ExportedHandler<Env>;
