// @ts-check
/**
 * The R2 record: its entry per bucket binding in the runtime config's `kinds.r2`
 * (bindings/index.mjs; `setup` the `r2_bucket` step with its `objects`), on Miniflare's real
 * bucket. A bucket no setup step names never reaches the record: the kind's `withoutSetup`
 * is "unsupported", so bindings/index.mjs stands a trap in for it.
 *
 * Effects. Each `put`, `delete`, `get`, `head` and `list` is one `io` point at `R2:<binding>`:
 * writes (put, delete) take every fault, reads (get, head, list) all but ambiguous, as the
 * kind's policy in its entry gives them (Python's record owns them; bindings/ladders.json holds the rows). Payloads:
 * `{args: {key, options}}` (delete: `{key}` or `{keys}`; list: `{options}`); results: put
 * `{stored, version, etag, size}` (`stored: false` when onlyIf failed and nothing was
 * written), get and head `{found, version, etag, size}` (get adds `body: false` when its onlyIf
 * failed and the object came back without a body), list `{keys, truncated, delimitedPrefixes}`,
 * delete `{}`.
 *
 * Nothing real happens after a point ends. A get's body is read inside its point and handed
 * back as an object with R2ObjectBody's fields and body methods over the buffered bytes; a
 * body stream the proxy handed out and the Worker passes back to put (copying an object) is
 * written from those bytes, and any other put value is read into bytes inside the put's
 * point, as the runtime's put needs a body of known length.
 *
 * Stand-ins. Miniflare gives each write a random version and the wall-clock upload time; the
 * proxy replaces both, per run and bucket: the n-th version the run sees (in the order the
 * effects saw them) is the 32-hex-digit n, and its `uploaded` is the virtual time it was first
 * seen, so traces repeat byte for byte. Etags are the body's MD5 in Miniflare (and R2), so they
 * are the real ones. Conditions on etags are evaluated by the real bucket. Conditions on the
 * upload time (uploadedBefore, uploadedAfter in an onlyIf object, If-Modified-Since or
 * If-Unmodified-Since in onlyIf Headers) make the run UNSUPPORTED (`binding_not_modelled`): the
 * store would compare its real upload time, not the stand-in the Worker saw, and a seeded
 * object has no upload time in the run at all. So do multipart uploads and every method the
 * proxy does not model.
 *
 * Reset and snapshot. The reset lists the bucket, deletes every object that is not a seed as
 * the last reset wrote it (same etag and metadata) and writes the seeds that are missing or
 * changed: its cost follows the objects in the bucket now (the seeds and what the last run
 * added), never the objects the bucket ever had. The snapshot is table `objects` of
 * `R2:<binding>`, one row per object `{key, size, etag, httpMetadata, customMetadata, text}`
 * (`httpMetadata` its fields that are set; `text` the body when it is at most TEXT_BYTES_MAX bytes of UTF-8, else null; the etag is the
 * body's digest), rows sorted by canonical JSON.
 */

import { assert } from "../assert.mjs";
import { compareText, toJson } from "../canonical.mjs";
import { bytesOf as bytesOfBuffer, loggedOrNull } from "../values.mjs";
import { effectPoint, UnsupportedSignal } from "../effects.mjs";
import { ladderOf } from "./policy.mjs";
import { UserFacingError } from "../errors.mjs";

/** A body at most this long, and valid UTF-8, is snapshotted as its text. */
export const TEXT_BYTES_MAX = 1024;
/** R2 lists at most 1000 keys a page (100 with metadata); a bucket listed in more pages than this is refused. */
const LIST_PAGES_MAX = 10_000;
/** R2 deletes at most 1000 keys in one call. */
const DELETE_KEYS_MAX = 1000;
/** The methods the proxy models; any other property of the binding is UNSUPPORTED. */
const MODELLED = new Set(["put", "delete", "get", "head", "list"]);

/** @typedef {{version: string, uploaded: number}} StandIn */

/** Each run's stand-ins, per bucket: real version -> stand-in, in first-seen order. @type {WeakMap<object, Map<string, Map<string, StandIn>>>} */
const standInsOfRun = new WeakMap();

/** The bytes behind each body stream the proxy handed out, for a put that copies it. @type {WeakMap<object, Uint8Array>} */
const bufferedBodies = new WeakMap();

/** What the last reset of each bucket wrote: key -> the etag and metadata the bucket then listed. @type {Map<string, Map<string, string>>} */
const lastSeeded = new Map();

/** @type {import("./record.mjs").BindingRecord} */
export const r2 = {
  kind: "r2",
  proxy: (run, inv, name, real, entry) => makeBucket(run, inv, name, real, entry),
  async reset(name, real, entry) {
    await resetBucket(name, real, entry.setup.objects);
  },
  async snapshot(owned) {
    /** @type {{target: string, table: string, rows: unknown[]}[]} */
    const snapshots = [];
    for (const [name, real] of [...owned].sort(([a], [b]) => compareText(a, b))) {
      snapshots.push({ target: `R2:${name}`, table: "objects", rows: await snapshotBucket(real) });
    }
    return snapshots;
  },
};

/**
 * The stand-in of one real version in this run's bucket: the next count and the virtual now
 * when the run first sees it.
 * @param {import("../run.mjs").Run} run @param {string} binding @param {string} version
 */
function standIn(run, binding, version) {
  let buckets = standInsOfRun.get(run);
  if (!buckets) standInsOfRun.set(run, (buckets = new Map()));
  let versions = buckets.get(binding);
  if (!versions) buckets.set(binding, (versions = new Map()));
  let found = versions.get(version);
  if (!found) {
    found = { version: (versions.size + 1).toString(16).padStart(32, "0"), uploaded: run.clock.now };
    versions.set(version, found);
  }
  return found;
}

/** @param {string} op @returns {(fault: string) => Error} */
function injectedError(op) {
  return (fault) => fault === "ambiguous"
    ? new Error(`${op}: Network connection lost. (eutaxy: ambiguous outcome injected; the ${op} took effect)`)
    : new Error(`${op}: We encountered an internal error. Please try again. (10001) (eutaxy: error injected; the ${op} did not happen)`);
}

/**
 * What a call passed (options, onlyIf, range, metadata) in the log's encoding (values.mjs),
 * with Headers (an onlyIf, an httpMetadata) as an object of their entries and functions left
 * out, as R2 reads them.
 * @param {unknown} value @returns {unknown}
 */
function plain(value) {
  return loggedOrNull(fields(value, 0));
}

/** @param {unknown} value @param {number} depth @returns {unknown} */
function fields(value, depth) {
  if (value instanceof Headers) return Object.fromEntries([...value.entries()].sort(([a], [b]) => compareText(a, b)));
  if (depth > 2 || value === null || typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).filter(([, item]) => typeof item !== "function").map(([key, item]) => [key, fields(item, depth + 1)]));
}

/** @param {Uint8Array} bytes */
function hex(bytes) {
  let text = "";
  for (const byte of bytes) text += byte.toString(16).padStart(2, "0");
  return text;
}

/**
 * What an onlyIf compares the upload time with, if anything: the uploadedBefore or
 * uploadedAfter field of an R2Conditional, or the If-Modified-Since or If-Unmodified-Since
 * header of onlyIf Headers.
 * @param {unknown} onlyIf @returns {string | null}
 */
export function uploadCondition(onlyIf) {
  if (onlyIf instanceof Headers) {
    for (const header of ["if-modified-since", "if-unmodified-since"]) if (onlyIf.has(header)) return `an ${header} header`;
    return null;
  }
  if (!onlyIf || typeof onlyIf !== "object") return null;
  for (const field of ["uploadedBefore", "uploadedAfter"]) if (/** @type {any} */ (onlyIf)[field] !== undefined) return field;
  return null;
}

/**
 * The bucket a Worker sees during one invocation.
 * @param {import("../run.mjs").Run} run @param {import("../effects.mjs").Invocation} inv
 * @param {string} binding @param {any} real the real R2Bucket
 */
export function makeBucket(run, inv, binding, real, entry) {
  const target = `R2:${binding}`;

  /** @param {string} what */
  const notModelled = (what) => {
    run.markUnsupported("binding_not_modelled", `R2 binding ${binding}: ${what} is not modelled`);
    return new UnsupportedSignal(`R2 ${binding}: ${what}`);
  };
  /** @param {string} op @param {any} options */
  const checkConditions = (op, options) => {
    const condition = uploadCondition(options?.onlyIf);
    if (condition) throw notModelled(`${op}() with an onlyIf on the upload time (${condition})`);
  };
  /**
   * @param {string} op @param {unknown} args
   * @param {() => Promise<any>} perform @param {(value: any) => unknown} summarize
   */
  const point = (op, args, perform, summarize) =>
    effectPoint(run, inv, { kind: "io", target, op, args, ladder: ladderOf(entry, op), injectedError: injectedError(op), perform, summarize });
  /** @param {any} object */
  const meta = (object) => objectOf(object, standIn(run, binding, object.version));

  const bucket = {
    /** @param {string} key */
    head: (key) => point("head", { key },
      async () => {
        const object = await real.head(key);
        return object ? meta(object) : null;
      },
      (object) => (object ? { found: true, ...summary(object) } : { found: false })),
    /** @param {string} key @param {any} [options] */
    get: (key, options) => {
      checkConditions("get", options);
      return point("get", { key, options: plain(options ?? {}) },
        async () => {
          const object = await real.get(key, options);
          if (!object) return null;
          const made = meta(object);
          if (!("body" in object)) return made;
          return withBody(made, new Uint8Array(await object.arrayBuffer()));
        },
        (object) => {
          if (!object) return { found: false };
          return "bodyUsed" in object ? { found: true, ...summary(object) } : { found: true, ...summary(object), body: false };
        });
    },
    /** @param {string} key @param {unknown} value @param {any} [options] */
    put: (key, value, options) => {
      checkConditions("put", options);
      return point("put", { key, options: plain(options ?? {}) },
        async () => {
          const bytes = await bytesOf(value);
          const object = await real.put(key, bytes, options);
          return object ? meta(object) : null;
        },
        (object) => (object ? { stored: true, ...summary(object) } : { stored: false }));
    },
    /** @param {string | string[]} keys */
    delete: (keys) => point("delete", Array.isArray(keys) ? { keys: [...keys] } : { key: keys },
      async () => {
        await real.delete(keys);
      },
      () => ({})),
    /** @param {any} [options] */
    list: (options) => point("list", { options: plain(options ?? {}) },
      async () => {
        const listed = await real.list(options);
        /** @type {Record<string, unknown>} */
        const answer = {
          objects: listed.objects.map(meta),
          truncated: listed.truncated,
          delimitedPrefixes: [...(listed.delimitedPrefixes ?? [])],
        };
        if (listed.truncated) answer.cursor = listed.cursor;
        return answer;
      },
      (listed) => ({
        keys: listed.objects.map((/** @type {{key: string}} */ object) => object.key),
        truncated: listed.truncated,
        delimitedPrefixes: listed.delimitedPrefixes,
      })),
  };

  return new Proxy(bucket, {
    get(target, property) {
      if (typeof property === "symbol" || property === "then") return undefined;
      if (MODELLED.has(property)) return target[/** @type {keyof typeof bucket} */ (property)];
      const what = property === "createMultipartUpload" || property === "resumeMultipartUpload"
        ? `${property}() (multipart uploads)`
        : `.${property}`;
      throw notModelled(what);
    },
    has(_target, property) {
      return typeof property === "string" && MODELLED.has(property);
    },
    set() {
      throw notModelled("assigning to the binding");
    },
  });
}

/** The fields of an object's recorded result. @param {any} object */
function summary(object) {
  return { version: object.version, etag: object.etag, size: object.size };
}

/**
 * An R2Object's fields, with the version and upload time replaced by the run's stand-ins.
 * @param {any} real @param {StandIn} stand
 */
function objectOf(real, stand) {
  /** @type {Record<string, unknown>} */
  const checksums = {};
  for (const [name, value] of Object.entries(real.checksums ?? {})) {
    if (value instanceof ArrayBuffer) checksums[name] = value.slice(0);
  }
  Object.defineProperty(checksums, "toJSON", {
    value: () => Object.fromEntries(Object.entries(checksums).map(([name, value]) => [name, hex(new Uint8Array(/** @type {ArrayBuffer} */ (value)))])),
  });
  const httpMetadata = { ...(real.httpMetadata ?? {}) };
  if (httpMetadata.cacheExpiry instanceof Date) httpMetadata.cacheExpiry = new Date(httpMetadata.cacheExpiry.getTime());
  /** @type {Record<string, unknown>} */
  const object = {
    key: real.key,
    version: stand.version,
    size: real.size,
    etag: real.etag,
    httpEtag: real.httpEtag,
    checksums,
    uploaded: new Date(stand.uploaded),
    httpMetadata,
    customMetadata: { ...(real.customMetadata ?? {}) },
    storageClass: real.storageClass,
  };
  if (real.range !== undefined) object.range = plain(real.range);
  if (real.ssecKeyMd5 !== undefined) object.ssecKeyMd5 = real.ssecKeyMd5;
  Object.defineProperty(object, "writeHttpMetadata", {
    value: (/** @type {Headers} */ headers) => real.writeHttpMetadata(headers),
  });
  return object;
}

/**
 * The object with R2ObjectBody's body and methods over bytes read inside the get's point:
 * `body` is a stream of them, and the body can be consumed once (`bodyUsed`).
 * @param {Record<string, any>} object @param {Uint8Array} bytes
 */
function withBody(object, bytes) {
  let used = false;
  /** @type {ReadableStream | null} */
  let stream = null;
  const take = () => {
    if (used) throw new TypeError("Body has already been used. It can only be used once. Use tee() first if you need to read it twice.");
    used = true;
    return bytes.slice();
  };
  Object.defineProperty(object, "body", {
    enumerable: true,
    get() {
      if (!stream) {
        stream = new ReadableStream({
          pull(controller) {
            if (used) {
              controller.error(new TypeError("Body has already been used."));
              return;
            }
            used = true;
            controller.enqueue(bytes.slice());
            controller.close();
          },
        });
        bufferedBodies.set(stream, bytes);
      }
      return stream;
    },
  });
  Object.defineProperty(object, "bodyUsed", { enumerable: true, get: () => used });
  object.arrayBuffer = async () => take().buffer;
  object.bytes = async () => take();
  object.text = async () => new TextDecoder().decode(take());
  object.json = async () => JSON.parse(new TextDecoder().decode(take()));
  object.blob = async () => new Blob([take()], { type: object.httpMetadata?.contentType ?? "" });
  return object;
}

/**
 * A put value as bytes: a body stream the proxy handed out from its buffer, anything else
 * read whole (a string as UTF-8).
 * @param {unknown} value @returns {Promise<Uint8Array>}
 */
async function bytesOf(value) {
  if (value === null || value === undefined) return new Uint8Array(0);
  if (typeof value === "string") return new TextEncoder().encode(value);
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return bytesOfBuffer(value).slice();
  const buffered = bufferedBodies.get(/** @type {object} */ (value));
  if (buffered) return buffered.slice();
  if (value instanceof Blob) return new Uint8Array(await value.arrayBuffer());
  if (value instanceof ReadableStream) return new Uint8Array(await new Response(value).arrayBuffer());
  throw new TypeError("R2 put(): the value must be a ReadableStream, ArrayBuffer, ArrayBufferView, string, Blob or null");
}

/**
 * Every object of the bucket, in key order, with its metadata; pages bounded.
 * @param {any} real @returns {Promise<any[]>}
 */
async function listAll(real) {
  /** @type {any[]} */
  const objects = [];
  /** @type {string | undefined} */
  let cursor;
  for (let page = 0; page < LIST_PAGES_MAX; page++) {
    const listed = await real.list({ include: ["httpMetadata", "customMetadata"], ...(cursor ? { cursor } : {}) });
    objects.push(...listed.objects);
    if (!listed.truncated) return objects;
    cursor = listed.cursor;
  }
  throw new Error(`an R2 bucket listed in more than ${LIST_PAGES_MAX} pages; Eutaxy does not reset buckets that large`);
}

/** What the reset compares a listed object by: its etag and metadata. @param {any} object */
function fingerprint(object) {
  return toJson([object.etag, plain(object.httpMetadata ?? {}), plain(object.customMetadata ?? {})]);
}

/** A seed's body as bytes: `{text}` or `{base64}`. @param {{text?: string, base64?: string}} body */
function seedBytes(body) {
  if (typeof body.text === "string") return new TextEncoder().encode(body.text);
  assert(typeof body.base64 === "string", () => `an r2_bucket seed body is ${JSON.stringify(body)}, neither {text} nor {base64} (eutaxy.cloudflare.r2_bucket writes one)`);
  const binary = atob(body.base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Empty the bucket of everything but the seeds as the last reset wrote them, then write the
 * seeds that are missing or changed.
 * @param {string} binding @param {any} real
 * @param {Record<string, {body: {text?: string, base64?: string}, httpMetadata?: object, customMetadata?: Record<string, string>}>} objects
 */
export async function resetBucket(binding, real, objects) {
  const seeded = lastSeeded.get(binding) ?? new Map();
  lastSeeded.delete(binding);
  const kept = new Set();
  /** @type {string[]} */
  const stale = [];
  for (const object of await listAll(real)) {
    if (Object.hasOwn(objects, object.key) && seeded.get(object.key) === fingerprint(object)) kept.add(object.key);
    else stale.push(object.key);
  }
  for (let start = 0; start < stale.length; start += DELETE_KEYS_MAX) await real.delete(stale.slice(start, start + DELETE_KEYS_MAX));
  /** @type {Map<string, string>} */
  const written = new Map();
  for (const key of Object.keys(objects).sort(compareText)) {
    if (kept.has(key)) {
      written.set(key, /** @type {string} */ (seeded.get(key)));
      continue;
    }
    const seed = objects[key];
    let object;
    try {
      object = await real.put(key, seedBytes(seed.body), {
        httpMetadata: seed.httpMetadata ?? {},
        customMetadata: seed.customMetadata ?? {},
      });
    } catch (error) {
      // An object R2 refuses (a key too long, metadata too large) is the scenario's to fix.
      const shown = key.length > 80 ? `${key.slice(0, 77)}...` : key;
      const refused = new UserFacingError(`setup r2_bucket(${JSON.stringify(binding)}): object ${JSON.stringify(shown)} cannot be stored: ${/** @type {Error} */ (error)?.message ?? error}`);
      refused.near = binding;
      throw refused;
    }
    written.set(key, fingerprint(object));
  }
  lastSeeded.set(binding, written);
}

/**
 * The fields of httpMetadata that hold a value: workerd lists the unset ones as undefined
 * under newer compatibility dates, which would make a row's shape depend on the date.
 * @param {any} metadata @returns {Record<string, unknown>}
 */
function setFields(metadata) {
  return Object.fromEntries(Object.entries(metadata).filter(([, value]) => value !== null && value !== undefined));
}

/**
 * The bucket's objects as rows, sorted by canonical JSON.
 * @param {any} real @returns {Promise<unknown[]>}
 */
export async function snapshotBucket(real) {
  const objects = await listAll(real);
  const rows = await Promise.all(objects.map(async (object) => {
    /** @type {string | null} */
    let text = null;
    if (object.size <= TEXT_BYTES_MAX) {
      const body = await real.get(object.key);
      try {
        text = body ? new TextDecoder("utf-8", { fatal: true }).decode(await body.arrayBuffer()) : null;
      } catch {
        text = null;
      }
    }
    return {
      key: object.key,
      size: object.size,
      etag: object.etag,
      httpMetadata: setFields(plain(object.httpMetadata ?? {})),
      customMetadata: plain(object.customMetadata ?? {}),
      text,
    };
  }));
  const keyed = rows.map((row) => /** @type {[string, unknown]} */ ([toJson(row), row]));
  keyed.sort((a, b) => compareText(a[0], b[0]));
  return keyed.map(([, row]) => row);
}
