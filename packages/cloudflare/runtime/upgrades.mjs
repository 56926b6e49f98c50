// @ts-check
/**
 * The client ends of WebSocket upgrades a Durable Object answered through a stub's fetch()
 * (bindings/durable_object.mjs notes each), so the websocket drive (websocket.mjs) knows which
 * object holds a connection's server end. A client end not noted here was made by the Worker
 * itself, without an object. Each notes the server ends the object accepted over the
 * Hibernation API during the call that answered it (`sockets`: the wrapper's forwarded
 * fetch notes them, objects.mjs; the object runs in the Worker's isolate, so they are the very
 * sockets `ctx.getWebSockets()` gives inside it) and the client end, so an answer a fault lost
 * (the Worker never saw its client end) is told apart from the one the Worker returned.
 * @typedef {{binding: string, className: string, id: any, object: string, invocation: string, client: any, sockets: any[]}} Upgrade
 */

/** @type {WeakMap<object, Upgrade>} */
const upgrades = new WeakMap();

/** The upgrades each invocation's stub calls answered, by invocation id, until the drive takes them. @type {Map<string, Upgrade[]>} */
const byInvocation = new Map();

/** The server ends each invocation's call accepted, until its stub call takes them. @type {WeakMap<object, any[]>} */
const accepted = new WeakMap();

/** The object's fetch, hosted for `inv`, accepted these server ends. @param {object} inv @param {any[]} sockets */
export function noteAccepted(inv, sockets) {
  if (sockets.length) accepted.set(inv, [...(accepted.get(inv) ?? []), ...sockets]);
}

/** The server ends `inv`'s call accepted, forgotten once taken. @param {object} inv @returns {any[]} */
export function takeAccepted(inv) {
  const found = accepted.get(inv) ?? [];
  accepted.delete(inv);
  return found;
}

/** @param {object} client @param {Upgrade} upgrade */
export function noteUpgrade(client, upgrade) {
  upgrades.set(client, upgrade);
  byInvocation.set(upgrade.invocation, [...(byInvocation.get(upgrade.invocation) ?? []), upgrade]);
}

/** The upgrades an invocation's stub calls answered, forgotten once taken. @param {string} invocation */
export function takeUpgrades(invocation) {
  const found = byInvocation.get(invocation) ?? [];
  byInvocation.delete(invocation);
  return found;
}

/** @param {object} client @returns {Upgrade | undefined} */
export function upgradeOf(client) {
  return upgrades.get(client);
}
