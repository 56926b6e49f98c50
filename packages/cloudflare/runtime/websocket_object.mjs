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
 *
 * A socket whose 101 answer a fault lost (the stub's fetch failed after the object accepted
 * it, or the Worker died before returning it) has no client: workerd sees its peer go away
 * without a close frame, calls the object's `webSocketClose(ws, 1006, "WebSocket disconnected
 * without sending Close frame.", false)` and drops the socket. `orphan` does the same for the
 * sockets the drive names lost (noteLost): the user's webSocketClose is called as an event of
 * the object's own (no call of it: its effects are the object's work after its answers,
 * `DO:<binding>/<object>/after`, after_work.mjs), and from then on `ctx.getWebSockets()` no longer lists the socket (the wrapper
 * takes getWebSockets over, takeOverSockets) and a real event workerd delivers for it later
 * is not forwarded (isGone): the object heard its close once.
 */

import { active } from "./active.mjs";
import { toJson } from "./canonical.mjs";
import { noteAccepted } from "./upgrades.mjs";
import { loggedOrNull } from "./values.mjs";

/**
 * Per run, per object (`<class>/<id string>`), its connections: the server end (null once the
 * instance was dropped), its tags and its attachment as canonical JSON; `orphan` for a socket
 * whose answer was lost (gone: no connection holds it, the object no longer sees it).
 * `broken` once a crash reset the object (ctx.abort()): workerd disconnected its sockets.
 * @typedef {{socket: any, tags: string[], attachment: string, orphan?: boolean, broken?: boolean}} Connection
 * @type {WeakMap<object, Map<string, Map<string, Connection>>>}
 */
const runs = new WeakMap();

/** Each object's real getWebSockets, before takeOverSockets. @type {WeakMap<object, (tag?: string) => any[]>} */
const realGetWebSockets = new WeakMap();

/** Server ends whose 101 answer a fault lost, named by the drive before `orphan`. @type {WeakSet<object>} */
const lost = new WeakSet();

/** Server ends the object heard close as lost (`orphan`): workerd dropped them. @type {WeakSet<object>} */
const gone = new WeakSet();

/** The code and reason workerd gives webSocketClose when the peer went away without a close frame. */
export const PEER_GONE = Object.freeze({ code: 1006, reason: "WebSocket disconnected without sending Close frame." });

/** The drive: these server ends' 101 answers never reached a client. @param {any[]} sockets */
export function noteLost(sockets) {
  for (const socket of sockets) lost.add(socket);
}

/** @param {any} ctx @param {string} [tag] @returns {any[]} */
function liveSockets(ctx, tag) {
  const real = realGetWebSockets.get(ctx);
  return real ? real(tag) : ctx.getWebSockets(tag);
}

/**
 * The orphaned sockets of the object in the run, found again after a drop by their tags and
 * attachment. @param {any} ctx @param {string} className @returns {Set<any>}
 */
function orphans(ctx, className) {
  const known = active.run ? runs.get(active.run)?.get(`${className}/${String(ctx.id)}`) : undefined;
  /** @type {Set<any>} */
  const found = new Set();
  if (!known) return found;
  const sockets = liveSockets(ctx);
  for (const record of known.values()) {
    if (!record.orphan) continue;
    const socket = find(ctx, known, record, sockets).socket;
    if (socket) found.add(socket);
  }
  return found;
}

/**
 * The object's getWebSockets without the sockets it heard close as lost (workerd drops a
 * socket whose peer went away). @param {any} ctx @param {string} className
 */
export function takeOverSockets(ctx, className) {
  if (typeof ctx.getWebSockets !== "function" || realGetWebSockets.has(ctx)) return;
  realGetWebSockets.set(ctx, ctx.getWebSockets.bind(ctx));
  Object.defineProperty(ctx, "getWebSockets", {
    configurable: true, writable: true,
    /** @param {string} [tag] */
    value(tag) {
      const hidden = orphans(ctx, className);
      return liveSockets(ctx, tag).filter((socket) => !gone.has(socket) && !hidden.has(socket));
    },
  });
}

/**
 * A crash reset the object (ctx.abort(), objects.mjs): workerd disconnects the sockets it
 * held, so their connections are closed and take no more messages. @param {any} ctx @param {string} className
 */
export function socketsBroken(ctx, className) {
  const known = active.run ? runs.get(active.run)?.get(`${className}/${String(ctx.id)}`) : undefined;
  for (const record of known?.values() ?? []) record.broken = true;
}

/** A real hibernation event for a socket the object already heard close as lost. @param {any} ctx @param {string} className @param {unknown} socket */
export function isGone(ctx, className, socket) {
  return typeof socket === "object" && socket !== null && (gone.has(socket) || orphans(ctx, className).has(socket));
}

/**
 * The object's fetch, for the invocation whose call it hosts: the server ends it accepted
 * are noted for the stub's call (upgrades.mjs), so the drive tells a lost answer's socket from
 * the one the Worker returned.
 * @param {any} ctx @param {() => unknown} call
 */
export function fetchNotingSockets(ctx, call) {
  const inv = active.run?.current ?? null;
  if (!inv) return call();
  const before = new Set(liveSockets(ctx));
  return Promise.resolve(call()).then((response) => {
    noteAccepted(inv, liveSockets(ctx).filter((socket) => !before.has(socket)));
    return response;
  });
}

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
 * @param {(call: () => unknown) => unknown} own run the user's code as the object's own (its work after its answers)
 */
export async function objectWebSocket(ctx, className, op, connection, data, user, hosted, own) {
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
  const sockets = liveSockets(ctx);
  if (op === "claim" || op === "orphan") {
    // Every connection's end found first (after a drop they are new objects), then the free ones.
    for (const other of known.values()) find(ctx, known, other, sockets);
    const taken = new Set([...known.values()].map((record) => record.socket));
    const free = sockets.filter((socket) => !taken.has(socket));
    if (op === "orphan") {
      // Sockets whose 101 answer was lost: the peer is gone without a close frame, so workerd
      // calls webSocketClose(ws, 1006, ..., false) and drops the socket.
      const orphaned = free.filter((socket) => lost.has(socket));
      const object = orphaned.length ? user() : null;
      for (const socket of orphaned) {
        // An event of the object's own, with no caller: its effects and what it awaits are the
        // object's work after its answers (after_work.mjs), which ctx.waitUntil hands it.
        if (typeof object?.webSocketClose === "function") {
          own(() => {
            /** @type {Promise<unknown>} */
            let closing;
            try {
              closing = Promise.resolve(object.webSocketClose(socket, PEER_GONE.code, PEER_GONE.reason, false));
            } catch (error) {
              closing = Promise.reject(error);
            }
            // workerd reports a handler's error and the object lives on.
            ctx.waitUntil(closing.catch(() => {}));
          });
        }
        known.set(`${connection}#orphan.${known.size}`, { socket, tags: ctx.getTags(socket), attachment: attachmentOf(socket), orphan: true });
        gone.add(socket);
      }
      return { orphans: orphaned.length };
    }
    if (free.length !== 1) return { claimed: false, free: free.length };
    const socket = free[0];
    known.set(connection, { socket, tags: ctx.getTags(socket), attachment: attachmentOf(socket) });
    return { claimed: true, closed: socket.readyState >= CLOSING };
  }
  const record = known.get(connection);
  if (!record) return { lost: true };
  if (record.broken) return { delivered: false, closed: true };
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
