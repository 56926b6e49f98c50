// @ts-check
/**
 * The D1 record: a `d1` section entry `{schema, sources, rows}` per binding (host/load.mjs),
 * the proxy of d1.mjs (each statement an `io` effect point), the reset that empties the
 * database, applies the schema steps and inserts the seeded rows (a schema that does not
 * apply is the user's to fix, named by file and line; a row the schema refuses, by its
 * table and index), and the snapshot of every user table.
 */

import { makeD1, resetD1, seedStatement, snapshotD1 } from "../d1.mjs";
import { UserFacingError } from "../errors.mjs";

/** @type {import("./record.mjs").BindingRecord} */
export const d1 = {
  kind: "d1",
  names: (config) => Object.entries(config.d1 ?? {}),
  proxy: (run, inv, name, real) => makeD1(run, inv, name, real),
  async reset(name, real, entry) {
    try {
      await resetD1(name, real, entry.schema, entry.rows ?? []);
    } catch (error) {
      throw await schemaFailure(name, real, entry.schema, entry.sources ?? [], entry.rows ?? [], error);
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
 * Why a reset failed: the schema's statements one at a time on an emptied database, the
 * first that fails named by its file and line (the user's to fix); then the seeded rows one
 * at a time, each row a foreign key holds back tried again after the others (the reset
 * defers foreign keys, so listing order does not matter), the first left over named by its
 * table and index; else the reset's own error.
 * @param {string} binding @param {any} real @param {string[]} schema @param {string[]} sources
 * @param {import("../d1.mjs").SeedRow[]} rows @param {unknown} error
 */
async function schemaFailure(binding, real, schema, sources, rows, error) {
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
  /** @type {{seed: import("../d1.mjs").SeedRow, message: string}[]} */
  let waiting = rows.map((seed) => ({ seed, message: "" }));
  // Bounded: each pass inserts at least one row or stops.
  for (let pass = 0; pass <= rows.length && waiting.length > 0; pass++) {
    /** @type {typeof waiting} */
    const next = [];
    for (const item of waiting) {
      try {
        await seedStatement(real, item.seed).run();
      } catch (failed) {
        const message = /** @type {Error} */ (failed)?.message ?? String(failed);
        if (!/FOREIGN KEY/i.test(message)) return rowFailure(binding, item.seed, message);
        next.push({ seed: item.seed, message });
      }
    }
    if (next.length === waiting.length) return rowFailure(binding, next[0].seed, next[0].message);
    waiting = next;
  }
  return error;
}

/** @param {string} binding @param {import("../d1.mjs").SeedRow} seed @param {string} message */
function rowFailure(binding, seed, message) {
  const error = new UserFacingError(
    `setup d1_schema(${JSON.stringify(binding)}): rows[${JSON.stringify(seed.table)}][${seed.index}] does not apply to the schema: ${message}, row: ${JSON.stringify(seed.row)}`,
  );
  error.near = seed.table;
  return error;
}
