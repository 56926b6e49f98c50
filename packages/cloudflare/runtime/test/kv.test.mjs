// @ts-check
/**
 * The KV record's pure parts: how a put's expiration is checked and placed on the virtual
 * clock (as Miniflare's store checks it on the real one), and how bytes are recorded.
 * packages/cloudflare/tests/test_kv_workerd.py runs the record on real workerd.
 */

import assert from "node:assert/strict";
import test from "node:test";

import { expirationOf, kv } from "../bindings/kv.mjs";

const NOW_MS = 1_767_225_600_500;
const NOW = 1_767_225_600;

test("no expiration is null; a TTL counts from the virtual now, in whole seconds", () => {
  assert.equal(expirationOf(undefined, NOW_MS), null);
  assert.equal(expirationOf({ metadata: {} }, NOW_MS), null);
  assert.equal(expirationOf({ expirationTtl: 60 }, NOW_MS), NOW + 60);
  assert.equal(expirationOf({ expirationTtl: "90" }, NOW_MS), NOW + 90);
});

test("a TTL wins over an absolute expiration, as KV's store takes it", () => {
  assert.equal(expirationOf({ expirationTtl: 120, expiration: NOW + 7200 }, NOW_MS), NOW + 120);
  assert.equal(expirationOf({ expiration: NOW + 7200 }, NOW_MS), NOW + 7200);
});

test("too short a TTL or too near an expiration is refused with the store's message", () => {
  assert.throws(() => expirationOf({ expirationTtl: 59 }, NOW_MS), /400 Invalid expiration_ttl of 59\. Expiration TTL must be at least 60\./);
  assert.throws(() => expirationOf({ expirationTtl: 0 }, NOW_MS), /Please specify integer greater than 0\./);
  assert.throws(() => expirationOf({ expirationTtl: "soon" }, NOW_MS), /Invalid expiration_ttl of soon/);
  assert.throws(() => expirationOf({ expiration: NOW }, NOW_MS), /greater than the current number of seconds/);
  assert.throws(() => expirationOf({ expiration: NOW + 59 }, NOW_MS), /at least 60 seconds in the future/);
  assert.equal(expirationOf({ expiration: NOW + 60 }, NOW_MS), NOW + 60);
});

test("a kv_namespace step without its entries, or an entry without its metadata, is refused naming it (never an empty store)", async () => {
  /** A namespace that records what the reset does to it. @type {string[]} */
  const done = [];
  const real = {
    list: async () => ({ keys: [{ name: "old" }], list_complete: true }),
    delete: async (/** @type {string} */ key) => void done.push(`delete ${key}`),
    put: async (/** @type {string} */ key, /** @type {string} */ value, /** @type {any} */ options) => void done.push(`put ${key}=${value} ${JSON.stringify(options)}`),
  };
  const step = (/** @type {object} */ fields) => ({ setup: { kind: "kv_namespace", binding: "CACHE", ...fields } });
  await assert.rejects(/** @type {any} */ (kv).reset("CACHE", real, step({})), /setup kv_namespace CACHE: entries must be a list/);
  await assert.rejects(/** @type {any} */ (kv).reset("CACHE", real, step({ entries: [{ key: "k", value: "v" }] })), /the entry of key "k" has no metadata/);
  assert.deepEqual(done, [], "a refused step leaves the namespace alone");
  await /** @type {any} */ (kv).reset("CACHE", real, step({ entries: [{ key: "k", value: "v", metadata: null }] }));
  await /** @type {any} */ (kv).reset("CACHE", real, { setup: null });
  assert.deepEqual(done, ["delete old", "put k=v {}", "delete old"]);
});
