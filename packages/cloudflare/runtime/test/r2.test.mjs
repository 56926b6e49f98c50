// @ts-check
/**
 * The R2 record on a real Miniflare bucket: every modelled method is one effect with its
 * payload, the Worker gets R2's answers with stand-in versions and upload times (the same
 * bytes run after run), conditional operations follow the bucket, each fault takes its
 * documented outcome, the reset restores the seeds, and what is not modelled is UNSUPPORTED.
 */

import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";

import { uploadCondition } from "../bindings/r2.mjs";
import { EPOCH_MS } from "../globals.mjs";
import { FIXTURES, fixtureLoad, kinds, paymentsPlan, useHost } from "./helpers.mjs";

const FIXTURE = path.join(FIXTURES, "r2-api");

const SEEDS = {
  "seed.json": { body: { text: "{\"n\": 1}" }, httpMetadata: { contentType: "application/json" }, customMetadata: { origin: "seed" } },
  "bytes.bin": { body: { base64: "AAEC/w==" }, httpMetadata: {}, customMetadata: {} },
};

const load = fixtureLoad(FIXTURE, {
  d1Databases: { DB: "r2-db" },
  kinds: kinds({ r2: { BUCKET: ["bucket", { kind: "r2_bucket", binding: "BUCKET", objects: SEEDS }], UNSET: ["unset-bucket", null] } }),
  queueConsumers: { jobs: { maxRetries: 3, retryDelaySeconds: 0, maxBatchSize: 1 } },
});
const host = useHost(load);

/** @param {string} step @param {object} [options] */
function plan(step, options = {}) {
  const base = paymentsPlan({ events: [{ id: "msg-1", body: { step } }], ...options });
  base.scenario.drive.name = "jobs";
  return base;
}

/** @param {string} fault @param {number} ordinal @param {string} step */
function faulted(step, ordinal, fault) {
  return plan(step, { policy: { kind: "replay", faults: [{ invocation: "msg-1#1", ordinal, fault }], turns: [], batches: [] }, bounds: { maxRedeliveries: 0 } });
}

/** @param {any[]} effects @param {string} target @param {string} table */
function snapshot(effects, target, table) {
  return effects.find((e) => e.kind === "snapshot" && e.target === target && e.op === table)?.payload.rows;
}

/** What the fixture recorded it saw at `step`. @param {any[]} effects @param {string} step */
function seen(effects, step) {
  const row = snapshot(effects, "D1:DB", "seen").find((/** @type {any} */ r) => r.step === step);
  return row ? JSON.parse(row.what) : undefined;
}

/** @param {any[]} effects */
function r2Results(effects) {
  return effects.filter((e) => e.target === "R2:BUCKET" && e.kind === "result");
}

/** The keys of snapshot rows, sorted (rows come in canonical JSON order). @param {any[]} rows */
const keys = (rows) => rows.map((r) => r.key).sort();

/** The n-th stand-in version. @param {number} n */
const version = (n) => n.toString(16).padStart(32, "0");

test("an onlyIf compares the upload time in an object's fields or in Headers", () => {
  assert.equal(uploadCondition({ uploadedAfter: new Date(0) }), "uploadedAfter");
  assert.equal(uploadCondition({ etagMatches: "e", uploadedBefore: new Date(0) }), "uploadedBefore");
  assert.equal(uploadCondition(new Headers({ "If-Unmodified-Since": new Date(0).toUTCString() })), "an if-unmodified-since header");
  assert.equal(uploadCondition({ etagMatches: "e" }), null);
  assert.equal(uploadCondition(new Headers({ "If-Match": "\"e\"" })), null);
  assert.equal(uploadCondition(undefined), null);
});

test("every R2 method is one effect with its payload, and the Worker gets R2's answers", async () => {
  const result = await host.runCompleted(plan("every-op"));
  const results = r2Results(result.effects);
  assert.deepEqual(results.map((e) => e.op), ["put", "head", "get", "get", "get", "put", "get", "list", "get", "delete", "delete"]);
  assert.deepEqual(results[0].payload.args, { key: "a.txt", options: { httpMetadata: { contentType: "text/plain" }, customMetadata: { by: "test" } } });
  assert.deepEqual(results[0].payload.result, { stored: true, version: version(1), etag: "5d41402abc4b2a76b9719d911017c592", size: 5 });
  assert.deepEqual(results[8].payload, { args: { key: "missing", options: {} }, result: { found: false } });
  assert.deepEqual(results[9].payload, { args: { key: "bytes.bin" }, result: {} });
  assert.deepEqual(results[10].payload, { args: { keys: ["x", "y"] }, result: {} });
  assert.deepEqual(results[7].payload.result, { keys: ["a.txt", "bytes.bin", "copy.json", "seed.json"], truncated: false, delimitedPrefixes: [] });
  const saw = seen(result.effects, "every-op");
  assert.equal(saw.text, "hello");
  assert.deepEqual(saw.json, { n: 1 });
  assert.deepEqual(saw.buffer, [0, 1, 2, 255]);
  assert.equal(saw.missing, null);
  assert.equal(saw.contentType, "text/plain");
  assert.deepEqual(saw.head.customMetadata, { by: "test" });
  assert.equal(saw.put.uploaded, new Date(EPOCH_MS).toISOString(), "the put's upload time is the virtual time the run first saw its version");
  assert.equal(saw.head.version, saw.put.version);
  assert.equal(saw.copy.size, 8, "a body stream handed out and passed back to put is written from its buffered bytes");
  const rows = snapshot(result.effects, "R2:BUCKET", "objects");
  assert.deepEqual(keys(rows), ["a.txt", "copy.json", "seed.json"]);
  assert.deepEqual(rows.find((/** @type {any} */ r) => r.key === "a.txt"), { key: "a.txt", size: 5, etag: "5d41402abc4b2a76b9719d911017c592", httpMetadata: { contentType: "text/plain" }, customMetadata: { by: "test" }, text: "hello" });
});

test("versions and upload times are stand-ins: two runs give the same bytes", async () => {
  const first = await host.run(plan("stand-ins"));
  const second = await host.run(plan("stand-ins"));
  assert.deepEqual(first.end, { kind: "completed" });
  assert.equal(JSON.stringify(second), JSON.stringify(first));
  const saw = seen(first.effects, "stand-ins");
  assert.deepEqual([saw.first.version, saw.second.version, saw.head.version, saw.seed.version], [version(1), version(2), version(2), version(3)]);
  assert.deepEqual([saw.first.uploaded, saw.second.uploaded, saw.seed.uploaded], [0, 1, 3].map((ms) => new Date(EPOCH_MS + ms).toISOString()));
});

test("conditional put and get follow the bucket: a failed put stores nothing, a failed get has no body", async () => {
  const result = await host.runCompleted(plan("conditional"));
  const saw = seen(result.effects, "conditional");
  assert.equal(saw.refused, null);
  assert.equal(saw.accepted.size, 8);
  assert.equal(saw.bodiless.hasBody, false);
  assert.equal(saw.withBody.hasBody, true);
  assert.equal(saw.text, "{\"n\": 2}");
  assert.equal(saw.absent.key, "new.txt");
  const results = r2Results(result.effects);
  assert.deepEqual(results[1].payload.result, { stored: false });
  assert.equal(results[3].payload.result.body, false);
  assert.equal(results[4].payload.result.body, undefined);
});

test("a body is read once: bodyUsed turns true and a second read throws", async () => {
  const result = await host.run(plan("body-used"));
  assert.deepEqual(seen(result.effects, "body-used"), { before: false, after: true, text: "{\"n\": 1}", again: "TypeError" });
});

test("the reset empties the bucket but its seeds, and writes the seeds the last run changed", async () => {
  await host.run(plan("every-op"));
  const next = await host.run(plan("write"));
  const rows = snapshot(next.effects, "R2:BUCKET", "objects");
  assert.deepEqual(keys(rows), ["bytes.bin", "seed.json", "w.txt"]);
  assert.deepEqual(rows.find((/** @type {any} */ r) => r.key === "seed.json"), {
    key: "seed.json", size: 8, etag: rows.find((/** @type {any} */ r) => r.key === "seed.json").etag,
    httpMetadata: { contentType: "application/json" }, customMetadata: { origin: "seed" }, text: "{\"n\": 1}",
  });
  assert.equal(rows.find((/** @type {any} */ r) => r.key === "bytes.bin").text, null, "bytes that are not UTF-8 have no text");
  const after = await host.run(plan("read"));
  assert.deepEqual(keys(snapshot(after.effects, "R2:BUCKET", "objects")), ["bytes.bin", "seed.json"]);
});

test("a write takes every fault and a read all but ambiguous, with their documented outcomes", async () => {
  const put = await host.run(faulted("write", 0, "crash_after"));
  assert.deepEqual(put.decisions.find((/** @type {any} */ d) => d.target === "R2:BUCKET")?.options, ["none", "crash_before", "crash_after", "ambiguous", "error"]);
  assert.ok(snapshot(put.effects, "R2:BUCKET", "objects").some((/** @type {any} */ r) => r.key === "w.txt"), "crash_after: the put committed");
  const before = await host.run(faulted("write", 0, "crash_before"));
  assert.ok(!snapshot(before.effects, "R2:BUCKET", "objects").some((/** @type {any} */ r) => r.key === "w.txt"), "crash_before: nothing written");
  const error = await host.run(faulted("write", 0, "error"));
  assert.ok(!snapshot(error.effects, "R2:BUCKET", "objects").some((/** @type {any} */ r) => r.key === "w.txt"), "error: nothing written");
  assert.ok(error.cuts.some((/** @type {any} */ c) => c.left[0] === "msg-1"), "the handler threw the injected error, and maxRedeliveries 0 cut its redelivery");
  const ambiguous = await host.run(faulted("write", 0, "ambiguous"));
  assert.ok(snapshot(ambiguous.effects, "R2:BUCKET", "objects").some((/** @type {any} */ r) => r.key === "w.txt"), "ambiguous: written, the answer lost");
  assert.ok(ambiguous.cuts.some((/** @type {any} */ c) => c.left[0] === "msg-1"));
  const read = await host.run(faulted("read", 0, "error"));
  assert.deepEqual(read.decisions.find((/** @type {any} */ d) => d.target === "R2:BUCKET")?.options, ["none", "crash_before", "crash_after", "error"]);
  assert.equal(seen(read.effects, "read"), undefined, "the read threw, so nothing was recorded");
});

test("upload-time conditions, multipart uploads and a bucket without setup are UNSUPPORTED", async () => {
  // The store would compare its real upload time, not the stand-in the Worker saw.
  for (const [step, detail] of [
    ["upload-after", "R2 binding BUCKET: get() with an onlyIf on the upload time (uploadedAfter) is not modelled"],
    ["upload-before", "R2 binding BUCKET: put() with an onlyIf on the upload time (uploadedBefore) is not modelled"],
    ["upload-header", "R2 binding BUCKET: get() with an onlyIf on the upload time (an if-modified-since header) is not modelled"],
  ]) {
    const condition = await host.run(plan(step));
    assert.deepEqual(condition.end, { kind: "unsupported", cause: "binding_not_modelled", detail }, step);
  }
  const multipart = await host.run(plan("multipart"));
  assert.deepEqual(multipart.end, { kind: "unsupported", cause: "binding_not_modelled", detail: "R2 binding BUCKET: createMultipartUpload() (multipart uploads) is not modelled" });
  const unset = await host.run(plan("unset"));
  assert.equal(unset.end.cause, "binding_without_setup");
  assert.match(unset.end.detail, /R2 binding UNSET was touched \(\.get\) but no setup step resets it; add r2_bucket\("UNSET", \{\.\.\.\}\)/);
});
