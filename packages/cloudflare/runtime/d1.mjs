// @ts-check
/**
 * D1: the proxy a Worker sees in place of its database, the reset before a run and the
 * snapshot after it.
 *
 * Each `run`, `first`, `all`, `raw`, `batch` and `exec` is one effect point at `D1:<binding>`;
 * `prepare` and `bind` are not (a prepared statement is not an effect until executed).
 * A write (any statement that is not a read: see `isRead`) takes the write ladder, a read the
 * read ladder, each from the binding's load-message entry (`ladderOf(entry, "write")`: Python's
 * record, eutaxy.cloudflare.bindings.d1, owns them); a batch is one point, a write if any statement in it writes, and commits all or
 * nothing as D1's does. Payloads: `{args: {sql, params}}` (a batch: `{args: {statements:
 * [{sql, params}, ...]}}`); a write's result is `{changes, lastRowId}` (plus `rows` for
 * `all`/`first`/`raw`, which hand rows back), a read's `{rows}`, `exec`'s `{count}`, a batch's
 * `{changes, lastRowId, results: [...]}` with one entry per statement. Timings in what the
 * Worker gets back (`meta.duration`, `meta.timings`) are zeroed so runs repeat exactly.
 * `withSession(...)` (the Sessions API) gives Miniflare's own session over the one local
 * database: its statements and batches are the same points, their args naming the session
 * (`session`: the constraint or bookmark it was opened with); it has no read replica, so a
 * session reads every committed write, and its bookmarks count from the binding's reset.
 */

import { effectPoint, UnsupportedSignal } from "./effects.mjs";
import { compareText, toJson } from "./canonical.mjs";
import { ladderOf } from "./bindings/policy.mjs";
import { loggedOrNull } from "./values.mjs";

/** Tables D1 and SQLite keep for themselves: neither reset nor snapshotted. */
const INTERNAL_TABLES = "name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'";

const LIST_SQL = `SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') AND ${INTERNAL_TABLES} ORDER BY name`;

/**
 * A statement reads when its first keyword is SELECT, VALUES or EXPLAIN, or it is a WITH
 * query that names no INSERT, UPDATE, DELETE or REPLACE. Everything else (DDL, PRAGMA
 * included) is a write: a fault model that treats a read as a write only offers one more
 * fault, while the converse would hide one.
 * @param {string} sql
 */
export function isRead(sql) {
  const text = sql.replace(/^(\s+|--[^\n]*(\n|$)|\/\*[\s\S]*?\*\/)*/, "");
  const keyword = (/^[A-Za-z]+/.exec(text)?.[0] ?? "").toUpperCase();
  if (keyword === "SELECT" || keyword === "VALUES" || keyword === "EXPLAIN") return true;
  if (keyword === "WITH") return !/\b(INSERT|UPDATE|DELETE|REPLACE)\b/i.test(text);
  return false;
}

/**
 * Split a schema file into statements on `;` at line ends (D1's exec() would split on every
 * newline), dropping empty pieces and comment-only pieces.
 * @param {string} text
 */
export function splitSchema(text) {
  return text
    .split(/;[ \t]*(?:\r?\n|$)/)
    .map((piece) => piece.trim())
    .filter((piece) => piece.replace(/--[^\n]*/g, "").trim() !== "");
}

/**
 * A binding's schema as its reset applies it: each file's statements (splitSchema), each known
 * by its file and the line its SQL starts on, so a schema that does not apply names where.
 * @param {{path: string, text: string}[]} files @returns {{schema: string[], sources: string[]}}
 */
export function schemaStatements(files) {
  /** @type {string[]} */
  const schema = [];
  /** @type {string[]} */
  const sources = [];
  for (const { path, text } of files) {
    let cursor = 0;
    for (const statement of splitSchema(text)) {
      const at = text.indexOf(statement, cursor);
      cursor = at + statement.length;
      schema.push(statement);
      sources.push(`${path}:${text.slice(0, at + sqlStart(statement)).split("\n").length}`);
    }
  }
  return { schema, sources };
}

/**
 * Where a statement's SQL begins: past the blank lines and comments splitSchema keeps in
 * front of it, so a failing statement is named by the line its SQL is on.
 * @param {string} statement
 */
function sqlStart(statement) {
  let at = 0;
  // Bounded: every pass moves `at` forward or stops.
  while (at < statement.length) {
    const rest = statement.slice(at);
    const space = /^\s+/.exec(rest);
    if (space) {
      at += space[0].length;
    } else if (rest.startsWith("--")) {
      const end = rest.indexOf("\n");
      at += end < 0 ? rest.length : end + 1;
    } else if (rest.startsWith("/*")) {
      const end = rest.indexOf("*/");
      at += end < 0 ? rest.length : end + 2;
    } else {
      break;
    }
  }
  return at;
}

/** Result rows in the log's encoding (values.mjs). @param {any[]} rows @returns {unknown[]} */
function plainRows(rows) {
  return /** @type {unknown[]} */ (loggedOrNull(rows ?? []));
}

/** Zero the wall-clock parts of a D1 result so the Worker sees the same value every run. @param {any} result */
function stabilize(result) {
  if (result && typeof result === "object" && result.meta && typeof result.meta === "object") {
    result.meta.duration = 0;
    if (result.meta.timings) result.meta.timings = { sql_duration_ms: 0 };
  }
  return result;
}

/** @param {string} fault */
function injectedError(fault) {
  return fault === "ambiguous"
    ? new Error("D1_ERROR: Network connection lost. (eutaxy: ambiguous outcome injected; the statement committed)")
    : new Error("D1_ERROR: internal error (eutaxy: error injected; the statement did not run)");
}

/**
 * The database a Worker sees during one invocation.
 * @param {import("./run.mjs").Run} run @param {import("./effects.mjs").Invocation} inv
 * @param {string} binding @param {any} real the real D1Database @param {any} entry the binding's load-message entry
 */
export function makeD1(run, inv, binding, real, entry) {
  const target = `D1:${binding}`;
  const readLadder = ladderOf(entry, "read");
  const writeLadder = ladderOf(entry, "write");
  /** @type {WeakMap<object, {statement: any, sql: string, params: unknown[]}>} */
  const statements = new WeakMap();

  /**
   * @param {string} op @param {{statement: any, sql: string, params: unknown[], session: string | null}} s
   * @param {() => Promise<any>} perform @param {(value: any) => unknown} summarize
   */
  const point = (op, s, perform, summarize) =>
    effectPoint(run, inv, {
      kind: "io", target, op, args: sessionArgs({ sql: s.sql, params: loggedOrNull(s.params) }, s.session),
      ladder: isRead(s.sql) ? readLadder : writeLadder, injectedError, perform, summarize,
    });

  /** @param {any} statement @param {string} sql @param {unknown[]} params @param {string | null} session */
  const wrap = (statement, sql, params, session) => {
    const s = { statement, sql, params, session };
    const write = !isRead(sql);
    const wrapped = {
      /** @param {unknown[]} values */
      bind: (...values) => wrap(statement.bind(...values), sql, values, session),
      run: () => point("run", s, async () => stabilize(await statement.run()),
        (r) => (write ? writeResult(r) : { rows: plainRows(r.results) })),
      all: () => point("all", s, async () => stabilize(await statement.all()),
        (r) => (write ? { ...writeResult(r), rows: plainRows(r.results) } : { rows: plainRows(r.results) })),
      /** @param {string} [column] */
      first: (column) => {
        /** @type {any} */
        let full;
        return point("first", s, async () => {
          full = await statement.all();
          const row = full.results?.[0] ?? null;
          if (column === undefined || row === null) return row;
          if (!(column in row)) throw new Error(`D1_COLUMN_NOTFOUND: Column not found (${column})`);
          return row[column];
        }, () => {
          const rows = plainRows(full.results?.slice(0, 1));
          return write ? { ...writeResult(full), rows } : { rows };
        });
      },
      /** @param {{columnNames?: boolean}} [options] */
      raw: (options) => {
        /** @type {any} */
        let full;
        return point("raw", s, async () => {
          if (!write) return statement.raw(options);
          // A write's raw() returns no meta, so it runs as run() and its rows are turned into
          // arrays here; the changes then reach the log.
          full = await statement.run();
          const rows = (full.results ?? []).map((/** @type {object} */ row) => Object.values(row));
          if (options?.columnNames) rows.unshift(full.results?.[0] ? Object.keys(full.results[0]) : []);
          return rows;
        }, (rows) => (write ? { ...writeResult(full), rows: plainRows(rows) } : { rows: plainRows(rows) }));
      },
    };
    statements.set(wrapped, s);
    return wrapped;
  };

  /**
   * A batch sent through `through` (the database or one of its sessions).
   * @param {any} through @param {string | null} session @param {object[]} list
   */
  const batch = (through, session, list) => {
      const items = list.map((item) => {
        const s = statements.get(item);
        if (!s) throw new TypeError("D1 batch(): every statement must come from the prepare() of this binding or its sessions");
        return s;
      });
      const writes = items.map((s) => !isRead(s.sql));
      return effectPoint(run, inv, {
        kind: "io", target, op: "batch",
        args: sessionArgs({ statements: items.map((s) => ({ sql: s.sql, params: loggedOrNull(s.params) })) }, session),
        ladder: writes.some(Boolean) ? writeLadder : readLadder, injectedError,
        perform: async () => (await through.batch(items.map((s) => s.statement))).map(stabilize),
        summarize: (results) => {
          const each = results.map((/** @type {any} */ r, /** @type {number} */ i) => (writes[i] ? writeResult(r) : { rows: plainRows(r.results) }));
          const changes = each.reduce((/** @type {number} */ sum, /** @type {any} */ r) => sum + (r.changes ?? 0), 0);
          const lastWrite = each.filter((/** @type {any} */ _r, /** @type {number} */ i) => writes[i]).at(-1);
          return { changes, lastRowId: lastWrite ? lastWrite.lastRowId : null, results: each };
        },
      });
  };

  return {
    /** @param {string} sql */
    prepare: (sql) => wrap(real.prepare(sql), sql, [], null),
    /** @param {object[]} list */
    batch: (list) => batch(real, null, list),
    /** @param {string} sql */
    exec: (sql) => effectPoint(run, inv, {
      kind: "io", target, op: "exec", args: { sql, params: [] },
      ladder: splitSchema(sql).every(isRead) ? readLadder : writeLadder, injectedError,
      perform: async () => {
        const result = await real.exec(sql);
        return { ...result, duration: 0 };
      },
      summarize: (r) => ({ count: r.count }),
    }),
    /**
     * A D1 session (the Sessions API): Miniflare's own session over the one local database, so
     * its reads see every committed write (no replica); its statements and batches are the same
     * effect points, with the same ladders, as the database's, their args naming the session.
     * Bookmarks are Miniflare's, counted from the binding's last reset (modelBookmark).
     * @param {string} [constraintOrBookmark]
     */
    withSession: (constraintOrBookmark) => {
      const given = typeof constraintOrBookmark === "string" ? constraintOrBookmark : undefined;
      const realSession = real.withSession(given === undefined ? given : realBookmark(binding, given));
      const session = given?.trim() || "first-unconstrained";
      return {
        /** @param {string} sql */
        prepare: (sql) => wrap(realSession.prepare(sql), sql, [], session),
        /** @param {object[]} list */
        batch: (list) => batch(realSession, session, list),
        getBookmark: () => modelBookmark(binding, realSession.getBookmark()),
      };
    },
    dump: () => {
      run.markUnsupported("binding_not_modelled", `D1 binding ${binding}: dump() is not modelled`);
      throw new UnsupportedSignal(`D1 ${binding}.dump()`);
    },
  };
}

/**
 * A statement's or batch's args, naming the session that sent it (what withSession was given,
 * `first-unconstrained` for nothing) when one did.
 * @param {Record<string, unknown>} args @param {string | null} session
 */
function sessionArgs(args, session) {
  return session === null ? args : { ...args, session };
}

/** Miniflare's local bookmark: four hex fields, the second counting the database's queries. */
const BOOKMARK = /^([0-9a-f]{8})-([0-9a-f]{8})-([0-9a-f]{8})-([0-9a-f]{32})$/;

/**
 * The bookmark each binding's last reset left (its second field), so a run's bookmarks count
 * from its reset and repeat exactly whatever ran before: Miniflare's counter lives as long as
 * the database, across runs.
 * @type {Map<string, number>}
 */
const resetBookmarks = new Map();

/** @param {string} bookmark @param {number} shift @returns {string} */
function shiftBookmark(bookmark, shift) {
  const match = BOOKMARK.exec(bookmark);
  if (!match) return bookmark;
  const counter = parseInt(match[2], 16) + shift;
  if (counter < 0 || counter > 0xffffffff) return bookmark;
  return `${match[1]}-${counter.toString(16).padStart(8, "0")}-${match[3]}-${match[4]}`;
}

/** The bookmark a Worker sees for Miniflare's `real` (null stays null). @param {string} binding @param {string | null} real */
function modelBookmark(binding, real) {
  return real === null ? null : shiftBookmark(real, -(resetBookmarks.get(binding) ?? 0));
}

/** The bookmark Miniflare is given for one a Worker holds; constraints and other text as they are. @param {string} binding @param {string} held */
function realBookmark(binding, held) {
  return shiftBookmark(held, resetBookmarks.get(binding) ?? 0);
}

/** @param {any} result */
function writeResult(result) {
  return { changes: result?.meta?.changes ?? 0, lastRowId: result?.meta?.last_row_id ?? null };
}

/** @param {string} name */
function quote(name) {
  return '"' + name.replaceAll('"', '""') + '"';
}

/**
 * What the last snapshot of each binding listed, so the next reset and snapshot can skip a
 * round trip: the reset drops what the snapshot saw (nothing touches the database between
 * runs), and the snapshot reads the tables it expects in the same batch that lists them,
 * reading again only when the list differs. A reset forgets the entry, so a run that ends
 * without a snapshot (UNSUPPORTED, or a failure) makes the next reset list the tables itself.
 * @type {Map<string, {type: string, name: string}[]>}
 */
const lastListed = new Map();

/**
 * A row the reset inserts: its table, its index in that table's list and its values, bytes
 * carried as `{base64}` (eutaxy.cloudflare.bindings.d1.seed_rows writes them).
 * @typedef {{table: string, index: number, row: Record<string, unknown>}} SeedRow
 */

/** The statement inserting a seeded row, through the real binding so D1 stores each value as it would. @param {any} real @param {SeedRow} seed */
export function seedStatement(real, seed) {
  const columns = Object.keys(seed.row);
  if (columns.length === 0) return real.prepare(`INSERT INTO ${quote(seed.table)} DEFAULT VALUES`);
  const values = Object.values(seed.row).map((value) =>
    value !== null && typeof value === "object" && "base64" in value ? Uint8Array.from(atob(String(value.base64)), (c) => c.charCodeAt(0)) : value);
  return real.prepare(`INSERT INTO ${quote(seed.table)} (${columns.map(quote).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`).bind(...values);
}

/** The most rows, and the most characters of their JSON, one seeding statement carries. */
const SEED_BATCH_ROWS = 1000;
const SEED_BATCH_CHARS = 200_000;

/** A value the grouped seeding stores as the binding would: not bytes, and text JSON carries unchanged (no NUL, no lone surrogate). @param {unknown} value */
function groupable(value) {
  if (typeof value === "string") return !/[\0\p{Surrogate}]/u.test(value);
  return value === null || typeof value === "number" || typeof value === "boolean";
}

/**
 * The seeded rows as few statements, made once per list of rows. Consecutive rows of one
 * table naming the same columns (up to SEED_BATCH_ROWS of them, SEED_BATCH_CHARS of JSON)
 * are one `INSERT ... SELECT` over `json_each` of their values, so SQLite inserts them
 * without a D1 query per row; each value is stored as D1's binding stores it (a number, and
 * a boolean as 1 or 0, as a REAL; text as text; null as NULL), rows in listing order. A row
 * with bytes, with no column, or with text JSON would not carry unchanged is its own
 * statement (seedStatement), in its place.
 * @type {WeakMap<SeedRow[], ({sql: string, json: string} | {seed: SeedRow})[]>}
 */
const seedPlans = new WeakMap();

/** @param {SeedRow[]} rows */
function seedPlan(rows) {
  let plan = seedPlans.get(rows);
  if (plan) return plan;
  plan = [];
  /** @type {{table: string, columns: string[], values: string[], chars: number} | null} */
  let group = null;
  const close = () => {
    if (!group) return;
    const picks = group.columns.map((_, i) =>
      `CASE json_type(value, '$[${i}]') WHEN 'integer' THEN CAST(value ->> '$[${i}]' AS REAL) ELSE value ->> '$[${i}]' END`);
    plan?.push({
      sql: `INSERT INTO ${quote(group.table)} (${group.columns.map(quote).join(", ")}) SELECT ${picks.join(", ")} FROM json_each(?) ORDER BY key`,
      json: `[${group.values.join(",")}]`,
    });
    group = null;
  };
  for (const seed of rows) {
    const columns = Object.keys(seed.row);
    const values = Object.values(seed.row);
    if (columns.length === 0 || !values.every(groupable)) {
      close();
      plan.push({ seed });
      continue;
    }
    const json = JSON.stringify(values.map((value) => (typeof value === "boolean" ? Number(value) : value)));
    const same = group && group.table === seed.table && group.columns.join("\0") === columns.join("\0");
    if (!same || !group || group.values.length >= SEED_BATCH_ROWS || group.chars + json.length > SEED_BATCH_CHARS) {
      close();
      group = { table: seed.table, columns, values: [], chars: 0 };
    }
    group.values.push(json);
    group.chars += json.length + 1;
  }
  close();
  seedPlans.set(rows, plan);
  return plan;
}

/**
 * Statements that set the connection's last inserted rowid to 0, the value a new database
 * starts with: D1 reports it as `last_row_id` for a statement that inserts nothing (a CREATE
 * TABLE), and it would otherwise carry from one run into the next.
 */
const ROWID_RESET = [
  'CREATE TABLE "eutaxy_rowid_reset" (x)',
  'INSERT INTO "eutaxy_rowid_reset" (rowid, x) VALUES (0, 0)',
  'DROP TABLE "eutaxy_rowid_reset"',
];

/**
 * Drop every user table and view, reset the last inserted rowid (ROWID_RESET), then apply the schema statements and insert the seeded
 * rows (seedPlan: a statement per run of rows, not per row), in one batch (outside the effect log). Deferred foreign keys let tables that
 * reference each other be dropped, and rows be seeded, in any order: D1 checks them when
 * the batch commits.
 * @param {string} binding @param {any} real @param {string[]} schema @param {SeedRow[]} [rows]
 */
export async function resetD1(binding, real, schema, rows = []) {
  const listed = lastListed.get(binding) ?? (await real.prepare(LIST_SQL).all()).results;
  lastListed.delete(binding);
  const drops = listed.map((/** @type {{type: string, name: string}} */ r) => `DROP ${r.type === "view" ? "VIEW" : "TABLE"} IF EXISTS ${quote(r.name)}`);
  const sql = [...(drops.length || rows.length ? ["PRAGMA defer_foreign_keys = ON", ...drops] : []), ...ROWID_RESET, ...schema];
  const seeds = seedPlan(rows).map((step) => ("seed" in step ? seedStatement(real, step.seed) : real.prepare(step.sql).bind(step.json)));
  const statements = [...sql.map((text) => real.prepare(text)), ...seeds];
  // Through a session, whose bookmark is where this run's bookmarks count from.
  const session = real.withSession("first-primary");
  await session.batch(statements.length ? statements : [real.prepare("SELECT 1")]);
  const bookmark = BOOKMARK.exec(session.getBookmark() ?? "");
  resetBookmarks.set(binding, bookmark ? parseInt(bookmark[2], 16) : 0);
}

/** @type {Map<string, string[]>} the tables each binding's last snapshot read */
const lastTables = new Map();

/**
 * Every user table's rows, tables in name order, rows sorted by canonical JSON.
 * @param {string} binding @param {any} real @returns {Promise<{table: string, rows: unknown[]}[]>}
 */
export async function snapshotD1(binding, real) {
  const guess = lastTables.get(binding) ?? [];
  const select = (/** @type {string} */ name) => real.prepare(`SELECT * FROM ${quote(name)}`);
  /** @type {any[]} */
  let answers = [];
  /** @type {{type: string, name: string}[]} */
  let listed;
  try {
    const [listing, ...guessed] = await real.batch([real.prepare(LIST_SQL), ...guess.map(select)]);
    listed = listing.results;
    answers = guessed;
  } catch {
    // A table the guess names is gone (the run dropped it): list alone, then read.
    listed = (await real.prepare(LIST_SQL).all()).results;
  }
  const tables = listed.filter((r) => r.type === "table").map((r) => r.name);
  if (answers.length !== tables.length || tables.some((name, i) => name !== guess[i])) {
    answers = tables.length ? await real.batch(tables.map(select)) : [];
  }
  lastTables.set(binding, tables);
  lastListed.set(binding, listed);
  return tables.map((table, i) => {
    const rows = plainRows(answers[i].results);
    const keyed = rows.map((row) => [toJson(row), row]);
    keyed.sort((a, b) => compareText(/** @type {string} */ (a[0]), /** @type {string} */ (b[0])));
    return { table, rows: keyed.map(([, row]) => row) };
  });
}
