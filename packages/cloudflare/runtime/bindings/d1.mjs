// @ts-check
/**
 * The D1 record: a `d1` section entry `{schema, sources}` per binding (host/load.mjs), the
 * proxy of d1.mjs (each statement an `io` effect point), the reset that empties the database
 * and applies the schema steps (a schema that does not apply is the user's to fix, named by
 * file and line), and the snapshot of every user table.
 */

import { makeD1, resetD1, snapshotD1 } from "../d1.mjs";
import { UserFacingError } from "../errors.mjs";

/** @type {import("./record.mjs").BindingRecord} */
export const d1 = {
  kind: "d1",
  names: (config) => Object.entries(config.d1 ?? {}),
  proxy: (run, inv, name, real) => makeD1(run, inv, name, real),
  async reset(name, real, entry) {
    try {
      await resetD1(name, real, entry.schema);
    } catch (error) {
      throw await schemaFailure(name, real, entry.schema, entry.sources ?? [], error);
    }
  },
  async snapshot(owned) {
    /** @type {{target: string, table: string, rows: unknown[]}[]} */
    const snapshots = [];
    for (const [name, real] of [...owned].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      for (const { table, rows } of await snapshotD1(name, real)) snapshots.push({ target: `D1:${name}`, table, rows });
    }
    return snapshots;
  },
};

/**
 * Why a schema did not apply: its statements one at a time on an emptied database, the
 * first that fails named by its file and line (the user's to fix); else the reset's own error.
 * @param {string} binding @param {any} real @param {string[]} schema @param {string[]} sources @param {unknown} error
 */
async function schemaFailure(binding, real, schema, sources, error) {
  try {
    await resetD1(binding, real, []);
  } catch {
    return error;
  }
  for (let i = 0; i < schema.length; i++) {
    try {
      await real.prepare(schema[i]).run();
    } catch (failed) {
      const text = schema[i].length > 120 ? `${schema[i].slice(0, 117)}...` : schema[i];
      const message = /** @type {Error} */ (failed)?.message ?? String(failed);
      return new UserFacingError(`${sources[i] ?? `statement ${i + 1}`}: the schema of D1 binding ${binding} does not apply: ${message}, in: ${text}`);
    }
  }
  return error;
}
