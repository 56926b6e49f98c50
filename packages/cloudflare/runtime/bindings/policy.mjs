// @ts-check
/**
 * A registered binding kind's policy, as its runtime record reads it from its load-message
 * entry (bindings/index.mjs gives each binding's entry the kind's `policy`): the Python
 * record (eutaxy.cloudflare.bindings) is its one owner, and the record writes none down.
 */

/**
 * A registered kind's bindings from its entry in the runtime config (`kinds`, host/load.mjs),
 * `[name, entry]` each in the entry's order: the binding's `{resource, setup, setupHint,
 * settings}` with the kind's `policy` and `title` (how messages name it), and `unset` when its kind may not touch it
 * without a setup step. None when the config has no entry for the kind.
 * @param {any} config the runtime config @param {string} kind @returns {[string, any][]}
 */
export function kindBindings(config, kind) {
  const entry = config.kinds?.[kind];
  if (!entry) return [];
  return Object.entries(entry.bindings).map(([name, binding]) => [name, { ...binding, policy: entry.policy, unset: binding.setup === null && entry.withoutSetup === "unsupported", title: entry.title }]);
}

/**
 * The ladder a registered kind's operation takes, from its entry's policy (Python's record
 * sends it; bindings/ladders.json holds the rows): an operation the policy lacks is
 * Eutaxy's own bug, never a point without faults.
 * @param {any} entry a binding's entry @param {string} op @returns {readonly string[]}
 */
export function ladderOf(entry, op) {
  const ladder = entry.policy?.ladders?.[op];
  if (!Array.isArray(ladder)) throw new Error(`the load message's policy gives no ladder for ${op} (${JSON.stringify(entry.policy)})`);
  return ladder;
}
