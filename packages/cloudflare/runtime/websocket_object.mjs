// @ts-check
/**
 * The object's side of the websocket drive (websocket.mjs), run inside the Durable Object by
 * the wrapper's OBJECT_WEBSOCKET method (objects.mjs).
 *
 * A connection's server end is the socket the object accepted over the Hibernation API
 * (`ctx.acceptWebSocket`) during the connection's open that no other connection holds
 * (`claim`: opens run one at a time). Before each message it is found again among
 * `ctx.getWebSockets()`: by identity, else, after the instance was dropped (`drop`: a crash,
 * the connection surviving as it survives hibernation), by the tags it was accepted with and
 * the attachment the object last gave it (`serializeAttachment`), which the next instance
 * sees. A message is delivered by calling the user's `webSocketMessage(ws, data)` on it, as
 * workerd does; the answer says whether the object has closed the socket since.
 */

import { active } from "./active.mjs";
import { toJson } from "./canonical.mjs";
import { loggedOrNull } from "./values.mjs";

/**
 * Per run, per object (`<class>/<id string>`), its connections: the server end (null once the
 * instance was dropped), its tags and its attachment as canonical JSON.
 * @typedef {{socket: any, tags: string[], attachment: string}} Connection
 * @type {WeakMap<object, Map<string, Map<string, Connection>>>}
 */
const runs = new WeakMap();

/** @param {any} socket */
function attachmentOf(socket) {
  try {
    return toJson(loggedOrNull(socket.deserializeAttachment() ?? null));
  } catch {
    return "";
  }
}

/**
 * The connection's end among the live sockets: by identity, else by its tags and attachment
 * among those no other connection holds (a new instance sees new socket objects).
 * @param {any} ctx @param {Map<string, Connection>} known @param {Connection} record @param {any[]} sockets
 * @returns {{socket: any, candidates: number}}
 */
function find(ctx, known, record, sockets) {
  if (record.socket && sockets.includes(record.socket)) return { socket: record.socket, candidates: 1 };
  const others = new Set([...known.values()].filter((other) => other !== record).map((other) => other.socket));
  const tags = toJson(record.tags);
  const candidates = sockets.filter((candidate) => !others.has(candidate) && toJson(ctx.getTags(candidate)) === tags && attachmentOf(candidate) === record.attachment);
  if (candidates.length !== 1) return { socket: null, candidates: candidates.length };
  record.socket = candidates[0];
  return { socket: record.socket, candidates: 1 };
}

/** WebSocket.CLOSING: the object called close() (or the peer did). */
const CLOSING = 2;

/**
 * @param {any} ctx the object's DurableObjectState @param {string} className
 * @param {string} op `claim`, `orphan`, `message` or `drop` @param {string} connection
 * @param {unknown} data the message (op `message`)
 * @param {() => any} user the user's object (built when missing; for `drop`, dropped instead)
 * @param {(call: () => unknown) => unknown} hosted run the user's code for the invocation in flight
 */
export async function objectWebSocket(ctx, className, op, connection, data, user, hosted) {
  const run = active.run;
  if (!run) return { lost: true };
  let held = runs.get(run);
  if (!held) runs.set(run, (held = new Map()));
  const key = `${className}/${String(ctx.id)}`;
  let known = held.get(key);
  if (!known) held.set(key, (known = new Map()));
  if (op === "drop") {
    user();
    for (const record of known.values()) record.socket = null;
    return {};
  }
  /** @type {any[]} */
  const sockets = ctx.getWebSockets();
  if (op === "claim" || op === "orphan") {
    // Every connection's end found first (after a drop they are new objects), then the free ones.
    for (const other of known.values()) find(ctx, known, other, sockets);
    const taken = new Set([...known.values()].map((record) => record.socket));
    const free = sockets.filter((socket) => !taken.has(socket));
    if (op === "orphan") {
      // An open that failed after the object accepted: nobody holds the client end, so the
      // connection is dropped at once (1011), and its end is no other connection's.
      for (const [index, socket] of free.entries()) {
        known.set(`${connection}#orphan.${index}`, { socket, tags: ctx.getTags(socket), attachment: attachmentOf(socket) });
        try {
          socket.close(1011, "eutaxy: the Worker died before the connection opened");
        } catch {
          // Already closing.
        }
      }
      return { orphans: free.length };
    }
    if (free.length !== 1) return { claimed: false, free: free.length };
    const socket = free[0];
    known.set(connection, { socket, tags: ctx.getTags(socket), attachment: attachmentOf(socket) });
    return { claimed: true, closed: socket.readyState >= CLOSING };
  }
  const record = known.get(connection);
  if (!record) return { lost: true };
  const found = find(ctx, known, record, sockets);
  if (!found.socket) return { lost: true, candidates: found.candidates };
  const socket = found.socket;
  if (socket.readyState >= CLOSING) return { delivered: false, closed: true };
  const object = user();
  if (typeof object.webSocketMessage !== "function") return { noHandler: true };
  try {
    await hosted(() => object.webSocketMessage(socket, data));
  } finally {
    record.attachment = attachmentOf(socket);
  }
  return { delivered: true, closed: socket.readyState >= CLOSING };
}
