// @ts-check
/**
 * The client ends of WebSocket upgrades a Durable Object answered through a stub's fetch()
 * (bindings/durable_object.mjs notes each), so the websocket drive (websocket.mjs) knows which
 * object holds a connection's server end. A client end not noted here was made by the Worker
 * itself, without an object.
 * @typedef {{binding: string, className: string, id: any, object: string, invocation: string}} Upgrade
 */

/** @type {WeakMap<object, Upgrade>} */
const upgrades = new WeakMap();

/** The upgrades each invocation's stub calls answered, by invocation id, until the drive takes them. @type {Map<string, Upgrade[]>} */
const byInvocation = new Map();

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
