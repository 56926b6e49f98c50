// @ts-check
/**
 * The D1 record, a registered kind (Python's `eutaxy.cloudflare.bindings.d1`): it owns its
 * kind's bindings, each entry's `setup` (null without one: bindings/index.mjs applies the
 * no-setup rule) `{files: [{path, text}], rows: {table: [row]}}`, the schema files in the
 * order they are applied (a step's file or migrations directory, else the config's
 * migrations) and the rows seeded after them; its policy gives the ladder of a read and of a
 * write. The proxy of d1.mjs (each statement an `io` effect point), the reset that empties
 * the database, applies the schema and inserts the seeded rows (a schema that does not apply
 * is the user's to fix, named by file and line; a row the schema refuses, by its table and
 * index), and the snapshot of every user table.
 */

import { makeD1, resetD1, schemaStatements, seedStatement, snapshotD1 } from "../d1.mjs";
import { UserFacingError } from "../errors.mjs";

/**
 * A binding's setup as its reset applies it, made once per setup (the runtime config lives as
 * long as the isolate): the schema's statements with their sources, and the seeded rows.
 * @type {WeakMap<object, {schema: string[], sources: string[], rows: import("../d1.mjs").SeedRow[]}>}
 */
const prepared = new WeakMap();

/** @param {{files: {path: string, text: string}[], rows: Record<string, Record<string, unknown>[]>}} setup */
function prepare(setup) {
  let known = prepared.get(setup);
  if (!known) {
    /** @type {import("../d1.mjs").SeedRow[]} */
    const rows = [];
    for (const [table, list] of Object.entries(setup.rows)) list.forEach((row, index) => rows.push({ table, index, row }));
    known = { ...schemaStatements(setup.files), rows };
    prepared.set(setup, known);
  }
  return known;
}

/** @type {import("./record.mjs").BindingRecord} */
export const d1 = {
  kind: "d1",
  proxy: (run, inv, name, real, entry) => makeD1(run, inv, name, real, entry),
  async reset(name, real, entry) {
    const { schema, sources, rows } = prepare(entry.setup);
    try {
      await resetD1(name, real, schema, rows);
    } catch (error) {
      throw await schemaFailure(name, real, schema, sources, rows, error);
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
