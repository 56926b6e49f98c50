// @ts-check
/**
 * The websocket drive: connections opened through the Worker's `fetch()`, then their messages
 * delivered inside the Durable Object that accepted them (the Hibernation API).
 *
 * Events, as eutaxy.cloudflare.websocket writes them: per connection its open
 * `{id, connection, path, headers}` then its messages `{id, connection, data}`.
 *
 * - Open: one invocation `<connection>#1` calling the Worker's fetch with an upgrade request.
 *   The Worker hands it to an object through a stub's fetch(), which answers 101 with the
 *   client end (bindings/durable_object.mjs notes which object, upgrades.mjs); the drive keeps
 *   the client end, accepts it and collects what arrives on it. The server end is the one
 *   socket the object accepted with `ctx.acceptWebSocket` that no connection holds
 *   (websocket_object.mjs), so opens run one at a time, in order. Recorded as
 *   `WebSocket:<connection>` `open` `{args: {path}, result: {status, opened}}`. A connection the
 *   Worker answers itself (a client end no object made: `websocket_not_object`) or an object
 *   that accepted its end with the standard API, `accept()`, instead of `ctx.acceptWebSocket`
 *   (`websocket_standard_api`) makes the run UNSUPPORTED. An answer a fault lost (the stub's
 *   fetch failed after the object accepted, `ambiguous`, or the Worker died before returning
 *   it, or retried and returned another) never reached a client: its object hears the peer go
 *   without a close frame, as workerd calls it (`webSocketClose(ws, 1006, ..., false)`, an
 *   event of the object's own, websocket_object.mjs), before the connection claims the socket
 *   the returned answer's call accepted. An open with no answer returned is `failed` (the
 *   client saw an error): its messages are not delivered.
 * - Message: one invocation `<message id>#1` whose one point is `WebSocket:<connection>`
 *   `send` `{args: {data}}`: the object's `webSocketMessage(ws, data)` is called on the
 *   connection's server end, with an alarm's faults (crash_before: the object crashed before
 *   handling it; crash_after: handled, then crashed; error: it failed, which the invocation's
 *   outcome counts as ended by a fault, `crashed`, not as an error the handler threw, as it
 *   counts a message whose object a crash elsewhere reset while it handled it). A crash drops the
 *   instance and the connection survives: the next instance finds its end again by the tags
 *   and attachment the object gave it; one it cannot tell apart from another makes the run
 *   UNSUPPORTED (`websocket_unidentified`). A message waits for its connection's open and the
 *   message before it on that connection; messages of different connections interleave as the
 *   scheduler allows. A message on a connection that did not open, or that the object closed,
 *   is recorded as not delivered (`send`, result `{delivered: false}`, no fault).
 * - End of the run: the frames that arrived on each client end, in arrival order, are recorded
 *   as `WebSocket:<connection>` `message` `{args: {data}}` under the invocation `websocket`
 *   (when a frame crosses the pair is the event loop's doing, not the schedule's), and a close
 *   the object made as `close` `{args: {code, reason}}`. `closeConnections` (after the
 *   snapshot, outside the run) closes the client ends still open, so workerd calls the
 *   object's webSocketClose then; what it does is not part of the run.
 */

import { assert } from "./assert.mjs";
import { runBackground, settleHandler } from "./background.mjs";
import { OBJECT_RESET_REASON, OBJECT_WEBSOCKET, callInto, objectLadder } from "./bindings/durable_object.mjs";
import { NO_FAULTS, effectPoint } from "./effects.mjs";
import { REQUEST_ORIGIN } from "./http.mjs";
import { realTurn } from "./patch.mjs";
import { drain } from "./settle.mjs";
import { takeUpgrades, upgradeOf } from "./upgrades.mjs";
import { noteLost } from "./websocket_object.mjs";
import { logged } from "./values.mjs";

/** The invocation the end-of-run frames are recorded under. */
const PLATFORM_INVOCATION = "websocket";

/**
 * @typedef {{id: string, path: string, headers: Record<string, string>, state: "waiting" | "opening" | "open" | "failed",
 *   client: any, upgrade: import("./upgrades.mjs").Upgrade | null, frames: unknown[], closed: {code: number, reason: string} | null,
 *   busy: boolean, closedSeen: boolean}} Conn
 */

/** Each run's connections, for the teardown. @type {WeakMap<import("./run.mjs").Run, Conn[]>} */
const runConnections = new WeakMap();

/** Each run's client ends of answers a fault lost, closed at the teardown. @type {WeakMap<import("./run.mjs").Run, any[]>} */
const runLostClients = new WeakMap();

/** @param {import("./run.mjs").Run} run */
function lostClients(run) {
  let clients = runLostClients.get(run);
  if (!clients) runLostClients.set(run, (clients = []));
  return clients;
}

/** The errors a fault injected at a message's delivery: Eutaxy's, never the handler's own. @type {WeakSet<object>} */
const injected = new WeakSet();

/** @param {string} fault */
function deliveryError(fault) {
  const error = new Error(`WebSocket message not handled (eutaxy: ${fault} injected)`);
  injected.add(error);
  return error;
}

/** @param {unknown} data */
function frame(data) {
  return typeof data === "string" ? data : JSON.stringify(data);
}

/**
 * A frame that arrived on a client end (a string or an `ArrayBuffer`), as the log holds it:
 * a text frame as its text, a binary frame as bytes in the log's encoding, never decoded as text.
 * @param {unknown} data @returns {unknown}
 */
export function frameLogged(data) {
  return logged(data);
}

/**
 * @param {import("./run.mjs").Run} run
 * @param {{kind: "websocket", events: any[]}} drive
 * @param {(request: Request, env: object, ctx: object) => unknown} handler
 */
export async function driveWebSocket(run, drive, handler) {
  assert(Array.isArray(drive.events), "the websocket drive's plan carries no events list");
  /** @type {Map<string, Conn>} */
  const conns = new Map();
  for (const event of drive.events) {
    assert(typeof event?.id === "string" && typeof event.connection === "string", () => `a websocket event of the plan carries no id or connection: ${JSON.stringify(event)}`);
    if (event.id === event.connection) {
      conns.set(event.id, { id: event.id, path: event.path, headers: event.headers ?? {}, state: "waiting", client: null, upgrade: null, frames: [], closed: null, busy: false, closedSeen: false });
    }
  }
  runConnections.set(run, [...conns.values()]);
  const pending = [...drive.events];
  let opening = false;
  /** @param {any} event */
  const ready = (event) => {
    const conn = conns.get(event.connection);
    if (event.id === event.connection) return !opening && pending.find((other) => other.id === other.connection) === event;
    // A message of a connection the shrinker removed has nothing to wait for.
    if (!conn) return true;
    return (conn.state === "open" || conn.state === "failed") && !conn.busy && pending.find((other) => other.connection === event.connection) === event;
  };

  /** @param {Conn} conn */
  const open = async (conn) => {
    opening = true;
    conn.state = "opening";
    const inv = run.startInvocation(`${conn.id}#1`);
    const request = new Request(REQUEST_ORIGIN + conn.path, {
      headers: { ...conn.headers, upgrade: "websocket", connection: "Upgrade", "sec-websocket-version": "13", "sec-websocket-key": "ZXV0YXh5LXdlYnNvY2tldA==" },
    });
    const { outcome, background } = await settleHandler(run, inv, (env, ctx) => handler(request, env, ctx));
    if (outcome.kind === "unsupported") {
      run.endInvocation(inv);
      opening = false;
      return true;
    }
    run.recordOutcome(inv, "websocket", outcome);
    const response = outcome.kind === "returned" && outcome.value instanceof Response ? outcome.value : null;
    const client = response?.status === 101 ? /** @type {any} */ (response).webSocket ?? null : null;
    const upgrade = client ? upgradeOf(client) ?? null : null;
    // The answers a fault lost (the stub's fetch failed after the object accepted, or the
    // Worker died or retried): their clients never connected, so their objects hear them go.
    const lostAnswers = takeUpgrades(inv.id).filter((other) => other.client !== client);
    for (const lost of lostAnswers) {
      lostClients(run).push(lost.client);
      noteLost(lost.sockets);
      if (!run.stopped) await objectStub(run, lost)[OBJECT_WEBSOCKET]("orphan", conn.id);
    }
    if (client && !upgrade) {
      run.markUnsupported("websocket_not_object", `connection ${conn.id}: the Worker answered the upgrade itself, not through a Durable Object; only connections an object accepts over the Hibernation API are modelled`);
    } else if (client && upgrade) {
      conn.client = client;
      conn.upgrade = upgrade;
      client.accept();
      client.addEventListener("message", (/** @type {any} */ event) => { conn.frames.push(frameLogged(event.data)); });
      client.addEventListener("close", (/** @type {any} */ event) => { conn.closed ??= { code: event.code, reason: event.reason }; });
      const stub = objectStub(run, upgrade);
      /** @type {any} */
      const claim = await stub[OBJECT_WEBSOCKET]("claim", conn.id);
      if (!claim.claimed) {
        run.markUnsupported("websocket_standard_api",
          `connection ${conn.id}: Durable Object ${upgrade.binding}/${upgrade.object} answered the upgrade without accepting its end with ctx.acceptWebSocket (${claim.free} unclaimed hibernatable sockets); the standard WebSocket API (accept() and event listeners) is not modelled`);
      } else if (claim.closed) {
        conn.closedSeen = true;
      }
    }
    const opened = conn.client !== null && !run.stopped;
    conn.state = opened ? "open" : "failed";
    effectPoint(run, inv, {
      kind: "platform", target: `WebSocket:${conn.id}`, op: "open", args: { path: conn.path }, ladder: NO_FAULTS,
      perform: () => ({ status: response?.status ?? 500, opened }), summarize: (result) => result,
    });
    opening = false;
    await (inv.crashed ? drain(run, inv) : runBackground(run, inv, `WebSocket:${conn.id}`, background));
    run.endInvocation(inv);
    return run.stopped;
  };

  /** @param {any} event */
  const send = async (event) => {
    const conn = conns.get(event.connection) ?? null;
    const inv = run.startInvocation(`${event.id}#1`);
    const target = `WebSocket:${event.connection}`;
    const data = frame(event.data);
    if (!conn || conn.state !== "open" || conn.closedSeen || conn.closed || !conn.upgrade) {
      effectPoint(run, inv, { kind: "platform", target, op: "send", args: { data }, ladder: NO_FAULTS, perform: () => ({ delivered: false }), summarize: (result) => result });
      run.endInvocation(inv);
      return run.stopped;
    }
    conn.busy = true;
    const upgrade = conn.upgrade;
    const stub = objectStub(run, upgrade);
    /** @type {any} */
    let answer = null;
    const done = effectPoint(run, inv, {
      kind: "io", hosts: true, target, op: "send", args: { data }, ladder: objectLadder(run.config, "webSocketMessage"), injectedError: deliveryError,
      summarize: (result) => ({ delivered: Boolean(result?.delivered) }),
      perform: () => callInto(run, inv, upgrade.className, upgrade.id, `${upgrade.binding}/${upgrade.object}.webSocketMessage`, async () => {
        answer = await stub[OBJECT_WEBSOCKET]("message", conn.id, data);
        if (answer.lost) {
          run.markUnsupported("websocket_unidentified",
            `connection ${conn.id}: after its Durable Object ${upgrade.binding}/${upgrade.object} was rebuilt, its socket could not be told apart from the others (${answer.candidates ?? 0} with its tags and attachment); give each socket tags or an attachment (serializeAttachment) that tell it apart`);
        } else if (answer.noHandler) {
          run.markUnsupported("websocket_standard_api", `connection ${conn.id}: Durable Object ${upgrade.binding}/${upgrade.object} has no webSocketMessage handler; the standard WebSocket API is not modelled`);
        }
        return answer;
      }),
    });
    const outcome = await run.scheduler.settle(inv, done);
    // The delivery is the invocation's one point: an error injected there, or the reset of the
    // object by a crash elsewhere while it handled the message, ended it by a fault, as a crash
    // does; no code of the user's threw it.
    const error = /** @type {any} */ (outcome.kind === "threw" ? outcome.error : null);
    const byFault = error !== null && (injected.has(error) || error?.message === OBJECT_RESET_REASON);
    run.recordOutcome(inv, "websocket", byFault ? { kind: "crashed" } : outcome);
    if (outcome.kind === "crashed" && !run.stopped) {
      // A crash drops the instance; the connection survives, as across hibernation.
      await Promise.resolve(stub[OBJECT_WEBSOCKET]("drop", conn.id)).catch(() => {});
    }
    if (answer?.closed) conn.closedSeen = true;
    conn.busy = false;
    run.endInvocation(inv);
    return run.stopped;
  };

  await run.scheduler.drive({
    next: () => pending.find(ready)?.id ?? null,
    start: () => {
      const event = /** @type {any} */ (pending.find(ready));
      pending.splice(pending.indexOf(event), 1);
      const conn = conns.get(event.connection);
      return event.id === event.connection && conn ? open(conn) : send(event);
    },
  });
  if (run.stopped) return;
  // Frames cross the pair on the event loop: let those already sent arrive.
  for (let turn = 0; turn < 8; turn++) await realTurn();
  for (const conn of conns.values()) {
    for (const data of conn.frames) run.record(`WebSocket:${conn.id}`, "message", "platform", { args: { data } }, PLATFORM_INVOCATION, 0, run.clock.now);
    if (conn.closed) run.record(`WebSocket:${conn.id}`, "close", "platform", { args: conn.closed }, PLATFORM_INVOCATION, 0, run.clock.now);
  }
}

/** @param {import("./run.mjs").Run} run @param {import("./upgrades.mjs").Upgrade} upgrade */
function objectStub(run, upgrade) {
  const real = run.realEnv[upgrade.binding];
  return real.get(real.idFromString(String(upgrade.id)));
}

/**
 * After the snapshot, outside the run: close the client ends still open (workerd then calls
 * the objects' webSocketClose, and the next reset evicts the objects) and forget them.
 * @param {import("./run.mjs").Run} run
 */
export async function closeConnections(run) {
  for (const conn of runConnections.get(run) ?? []) {
    if (!conn.upgrade) continue;
    try {
      if (!conn.closed) conn.client.close(1000, "eutaxy: run ended");
    } catch {
      // Already closing.
    }
  }
  runConnections.delete(run);
  // A lost answer's client end: the object heard it go already (websocket_object.mjs); closed
  // here rather than whenever it is collected, so workerd's own event for it comes now.
  for (const client of runLostClients.get(run) ?? []) {
    try {
      client.accept();
      client.close(1000, "eutaxy: run ended");
    } catch {
      // Already closing.
    }
  }
  runLostClients.delete(run);
}
