// @ts-check
/**
 * The KV record: its entry per namespace in the runtime config's `kinds.kv` (bindings/index.mjs;
 * `setup` the `kv_namespace` step with its `entries`, `{key, value, metadata}` each, or null:
 * then the namespace starts every run empty, the kind's `withoutSetup`), the proxy a
 * Worker sees in place of its namespace, the reset that empties the namespace and seeds it,
 * and the snapshot of every key.
 *
 * Effects. Each `get` (one key or an array of keys, every `type`), `getWithMetadata`, `put`,
 * `delete` and `list` is one `io` effect point at `KV:<binding>`, performed on Miniflare's
 * real namespace: reads (`get`, `getWithMetadata`, `list`) take the read ladder, writes
 * (`put`, `delete`) the write ladder, as the kind's policy in its entry gives them (Python's
 * record owns them; bindings/ladders.json holds the rows). `crash_before` and `error` mean the operation never
 * reached KV, `ambiguous` that the write was stored and its answer lost, `crash_after` that
 * the caller died after it. Payloads: `{args: {key | keys, type?, value?, options?}}`; a
 * completed operation's result has `ok: true` (one the store refused records `{error}`
 * instead), and a read's adds `value` (getWithMetadata: and `metadata`; bulk: `values`,
 * `{key: value}`; list: `keys`, `list_complete`, `cursor`), a put's `expiration`. A value that is bytes is
 * recorded as KV keeps it, as its UTF-8 text, or in the log's encoding for bytes
 * (values.mjs `textOrBytes`: `{"$": "bytes", "v": base64}`) when it is not text; a stream is read inside
 * its point (a body read later would be I/O the run cannot see) and handed back as a new
 * stream of the same bytes.
 *
 * Expiration in virtual time. Miniflare's store would compare an expiration with the real
 * clock, which is months ahead of the virtual one, so the proxy never passes `expiration`
 * or `expirationTtl` to it: it checks them as KV does against the virtual clock (a TTL of
 * at least 60 s, an absolute time at least 60 s ahead; TTL wins when both are given), keeps
 * the absolute expiration per key here, and before each operation and the snapshot deletes
 * the keys whose expiration the virtual clock has reached. `list` shows a key's
 * `expiration` as KV does. The seed has none.
 */

import { effectPoint } from "../effects.mjs";
import { ladderOf } from "./policy.mjs";
import { assert } from "../assert.mjs";
import { compareText, toJson } from "../canonical.mjs";
import { bytesOf, loggedOrNull, textOrBytes } from "../values.mjs";
import { UserFacingError } from "../errors.mjs";
import { modelledOnly } from "../unsupported.mjs";

/** KV's shortest expiration: a TTL, or the distance of an absolute time from now, in seconds. */
const EXPIRATION_SECONDS_MIN = 60;
/** KV answers at most 1000 keys per list page. */
const LIST_PAGE_KEYS_MAX = 1000;
/** Pages a reset or a snapshot reads at most: a million keys is far past a scenario's. */
const LIST_PAGES_MAX = 1000;

/**
 * Per namespace, what the proxy keeps across one run: each key's absolute expiration
 * (seconds, virtual) and the run's clock. Both are forgotten by the reset.
 * @type {Map<string, {expirations: Map<string, number>, clock: {now: number} | null}>}
 */
const STATE = new Map();

/** @param {string} name */
function stateOf(name) {
  let state = STATE.get(name);
  if (!state) {
    state = { expirations: new Map(), clock: null };
    STATE.set(name, state);
  }
  return state;
}

/** @type {import("./record.mjs").BindingRecord} */
export const kv = {
  kind: "kv",
  proxy: (run, inv, name, real, entry) => modelledOnly(makeKv(run, inv, name, real, entry), "KV", name),
  async reset(name, real, entry) {
    // No step: the namespace starts empty (the kind's withoutSetup). A step without its entries,
    // or an entry without its metadata, is Eutaxy's own bug (Python's record writes both),
    // never an empty store.
    const entries = entry.setup === null ? [] : entry.setup.entries;
    if (!Array.isArray(entries)) throw new Error(`setup kv_namespace ${name}: entries must be a list (eutaxy.cloudflare.kv_namespace writes it), found ${JSON.stringify(entries)}`);
    for (const { key, metadata } of entries) {
      if (metadata === undefined) throw new Error(`setup kv_namespace ${name}: the entry of key ${JSON.stringify(key)} has no metadata (null when none)`);
    }
    STATE.delete(name);
    for (const key of await allKeys(real)) await real.delete(key);
    for (const { key, value, metadata } of entries) {
      try {
        await real.put(key, value, metadata === null ? {} : { metadata });
      } catch (error) {
        throw new UserFacingError(`setup kv_namespace(${JSON.stringify(name)}): key ${JSON.stringify(key)} cannot be stored: ${/** @type {Error} */ (error)?.message ?? error}`);
      }
    }
  },
  async snapshot(owned) {
    /** @type {{target: string, table: string, rows: unknown[]}[]} */
    const snapshots = [];
    for (const [name, real] of [...owned].sort(([a], [b]) => compareText(a, b))) {
      const state = stateOf(name);
      if (state.clock) await sweep(real, state, state.clock.now);
      /** @type {unknown[]} */
      const rows = [];
      for (const key of await allKeys(real)) {
        const { value, metadata } = await real.getWithMetadata(key, "arrayBuffer");
        if (value === null) continue;
        rows.push({ key, value: textOrBytes(new Uint8Array(value)), metadata: metadata ?? null, expiration: state.expirations.get(key) ?? null });
      }
      rows.sort((a, b) => compareText(toJson(a), toJson(b)));
      snapshots.push({ target: `KV:${name}`, table: "keys", rows });
    }
    return snapshots;
  },
};

/** Every key of a namespace, bounded by LIST_PAGES_MAX pages. @param {any} real @returns {Promise<string[]>} */
async function allKeys(real) {
  /** @type {string[]} */
  const keys = [];
  /** @type {string | undefined} */
  let cursor;
  for (let page = 0; page < LIST_PAGES_MAX; page++) {
    const listed = await real.list({ limit: LIST_PAGE_KEYS_MAX, cursor });
    for (const { name } of listed.keys) keys.push(name);
    if (listed.list_complete) return keys;
    cursor = listed.cursor;
  }
  throw new Error(`a KV namespace holds more than ${LIST_PAGES_MAX * LIST_PAGE_KEYS_MAX} keys`);
}

/** Delete the keys whose expiration the virtual clock reached. @param {any} real @param {{expirations: Map<string, number>}} state @param {number} nowMs */
async function sweep(real, state, nowMs) {
  const now = Math.floor(nowMs / 1000);
  for (const [key, expiration] of [...state.expirations]) {
    assert(Number.isInteger(expiration), () => `KV key ${key} keeps the expiration ${expiration}, not whole seconds`);
    if (expiration > now) continue;
    await real.delete(key);
    state.expirations.delete(key);
  }
}

/** A put's value as the log shows it. @param {unknown} value */
function valueArg(value) {
  if (typeof value === "string") return value;
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return textOrBytes(bytesOf(value));
  if (value instanceof ReadableStream) return { stream: "read in the put" };
  return { unsupported: typeof value };
}

/** A get's value as the log shows it, by type. @param {unknown} value */
function valueResult(value) {
  if (value instanceof ArrayBuffer) return textOrBytes(new Uint8Array(value));
  return loggedOrNull(value);
}

/** The type a get names: its second argument, a string or `{type}`. @param {unknown} options */
function typeOf(options) {
  if (typeof options === "string") return options;
  if (options && typeof options === "object" && "type" in options) return String(/** @type {any} */ (options).type);
  return "text";
}

/** @param {string} op @param {string} fault */
function injectedError(op, fault) {
  const verb = op === "put" ? "PUT" : op === "delete" ? "DELETE" : op === "list" ? "LIST" : "GET";
  return fault === "ambiguous"
    ? new Error(`KV ${verb} failed: Network connection lost. (eutaxy: ambiguous outcome injected; the write was stored)`)
    : new Error(`KV ${verb} failed: 500 Internal Server Error (eutaxy: error injected; the operation did not reach KV)`);
}

/**
 * The absolute expiration (virtual seconds) a put asks for, checked as KV checks it; null for none.
 * @param {any} options @param {number} nowMs
 */
export function expirationOf(options, nowMs) {
  const now = Math.floor(nowMs / 1000);
  const ttl = options?.expirationTtl;
  if (ttl !== undefined && ttl !== null) {
    const seconds = parseInt(String(ttl), 10);
    if (Number.isNaN(seconds) || seconds <= 0) throw new Error(`KV PUT failed: 400 Invalid expiration_ttl of ${ttl}. Please specify integer greater than 0.`);
    if (seconds < EXPIRATION_SECONDS_MIN) throw new Error(`KV PUT failed: 400 Invalid expiration_ttl of ${ttl}. Expiration TTL must be at least ${EXPIRATION_SECONDS_MIN}.`);
    return now + seconds;
  }
  const at = options?.expiration;
  if (at === undefined || at === null) return null;
  const seconds = parseInt(String(at), 10);
  if (Number.isNaN(seconds) || seconds <= now) {
    throw new Error(`KV PUT failed: 400 Invalid expiration of ${at}. Please specify integer greater than the current number of seconds since the UNIX epoch.`);
  }
  if (seconds < now + EXPIRATION_SECONDS_MIN) throw new Error(`KV PUT failed: 400 Invalid expiration of ${at}. Expiration times must be at least ${EXPIRATION_SECONDS_MIN} seconds in the future.`);
  return seconds;
}

/** The options a put records: what the Worker gave, plain. @param {any} options */
function putOptionsArg(options) {
  /** @type {Record<string, unknown>} */
  const arg = {};
  for (const field of ["expiration", "expirationTtl", "metadata"]) if (options?.[field] !== undefined) arg[field] = options[field];
  return arg;
}

/**
 * The namespace a Worker sees during one invocation.
 * @param {import("../run.mjs").Run} run @param {import("../effects.mjs").Invocation} inv
 * @param {string} binding @param {any} real the real KVNamespace @param {any} entry its entry (bindings/index.mjs), whose policy gives each operation's ladder
 */
export function makeKv(run, inv, binding, real, entry) {
  const target = `KV:${binding}`;
  const state = stateOf(binding);
  state.clock = run.clock;

  /**
   * @param {string} op @param {unknown} args
   * @param {() => Promise<any>} perform @param {(value: any) => unknown} summarize
   */
  const point = (op, args, perform, summarize) =>
    effectPoint(run, inv, {
      kind: "io", target, op, args, ladder: ladderOf(entry, op),
      injectedError: (fault) => injectedError(op, fault),
      perform: async () => {
        await sweep(real, state, run.clock.now);
        return perform();
      },
      summarize,
    });

  /**
   * A read of one key by `get` or `getWithMetadata`: a stream's bytes are read inside the point.
   * @param {string} key @param {unknown} options @param {boolean} withMetadata
   */
  const readOne = (key, options, withMetadata) => {
    const type = typeOf(options);
    const stream = type === "stream";
    /** @type {any} */
    const realOptions = stream ? (typeof options === "string" ? "arrayBuffer" : { ...(/** @type {object} */ (options)), type: "arrayBuffer" }) : options;
    /** @type {unknown} */
    let recorded = null;
    return point(withMetadata ? "getWithMetadata" : "get", { key, type }, async () => {
      const answer = withMetadata ? await real.getWithMetadata(key, realOptions) : await real.get(key, realOptions);
      const value = withMetadata ? answer.value : answer;
      recorded = valueResult(value);
      if (!stream || value === null) return answer;
      const bytes = new Uint8Array(value);
      const body = new Response(bytes).body;
      return withMetadata ? { ...answer, value: body } : body;
    }, (answer) => (withMetadata ? { ok: true, value: recorded, metadata: answer.metadata ?? null } : { ok: true, value: recorded }));
  };

  /**
   * A bulk read: an array of keys, answered with a Map (KV takes text and json types only;
   * the real binding refuses the others, and the refusal is the recorded result).
   * @param {string[]} keys @param {unknown} options @param {boolean} withMetadata
   */
  const readMany = (keys, options, withMetadata) =>
    point(withMetadata ? "getWithMetadata" : "get", { keys: [...keys], type: typeOf(options) },
      () => (withMetadata ? real.getWithMetadata(keys, options) : real.get(keys, options)),
      (/** @type {Map<string, any>} */ answer) => {
        /** @type {Record<string, unknown>} */
        const values = {};
        for (const [key, value] of answer) {
          values[key] = withMetadata ? { value: valueResult(value?.value), metadata: value?.metadata ?? null } : valueResult(value);
        }
        return { ok: true, values };
      });

  return {
    /** @param {string | string[]} key @param {unknown} [options] */
    get: (key, options) => (Array.isArray(key) ? readMany(key, options, false) : readOne(key, options, false)),
    /** @param {string | string[]} key @param {unknown} [options] */
    getWithMetadata: (key, options) => (Array.isArray(key) ? readMany(key, options, true) : readOne(key, options, true)),
    /** @param {string} key @param {unknown} value @param {any} [options] */
    put: (key, value, options) => {
      /** @type {number | null} */
      let expiration = null;
      return point("put", { key, value: valueArg(value), options: putOptionsArg(options) }, async () => {
        expiration = expirationOf(options, run.clock.now);
        const stored = value instanceof ReadableStream ? new Uint8Array(await new Response(value).arrayBuffer()) : value;
        await real.put(key, stored, options?.metadata === undefined ? {} : { metadata: options.metadata });
        if (expiration === null) state.expirations.delete(key);
        else state.expirations.set(key, expiration);
        return undefined;
      }, () => ({ ok: true, expiration }));
    },
    /** @param {string} key */
    delete: (key) => point("delete", { key }, async () => {
      await real.delete(key);
      state.expirations.delete(key);
      return undefined;
    }, () => ({ ok: true })),
    /** @param {{prefix?: string | null, limit?: number, cursor?: string | null}} [options] */
    list: (options) => {
      /** @type {Record<string, unknown>} */
      const args = {};
      for (const field of ["prefix", "limit", "cursor"]) if (/** @type {any} */ (options)?.[field] != null) args[field] = /** @type {any} */ (options)[field];
      return point("list", args, async () => {
        const listed = await real.list(options);
        const keys = listed.keys.map((/** @type {any} */ entry) => {
          const expiration = state.expirations.get(entry.name);
          return expiration === undefined ? entry : { ...entry, expiration };
        });
        return { ...listed, keys };
      }, (listed) => ({ ok: true, keys: listed.keys, list_complete: listed.list_complete, cursor: listed.cursor ?? null }));
    },
  };
}
