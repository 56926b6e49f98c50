// @ts-check
/** Test helpers: start a real host process, speak its JSON lines, build run plans. */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { after, before } from "node:test";
import { fileURLToPath } from "node:url";

export const TEST_DIR = path.dirname(fileURLToPath(import.meta.url));
export const RUNTIME_DIR = path.dirname(TEST_DIR);
export const REPO = path.resolve(RUNTIME_DIR, "../../..");
export const NODE_MODULES = process.env.EUTAXY_NODE_MODULES ?? path.join(REPO, "toolchain/node/node_modules");
export const FIXTURES = path.join(RUNTIME_DIR, "fixtures");
export const FIXTURE = path.join(FIXTURES, "payments");

/**
 * The platform's ladders as Python's load message carries them (eutaxy.core.faults'
 * RUNTIME_LADDERS): core's vectors/ladders.json, the rows both suites read.
 * @returns {Record<string, string[]>}
 */
export function platformLadders() {
  return JSON.parse(readFileSync(path.join(REPO, "packages/core/src/eutaxy/core/vectors/ladders.json"), "utf8")).ladders;
}

/**
 * A registered kind's policy as its Python record sends it: each operation's ladder, and the
 * rest of its policy (a Durable Object alarm's retry delays), from the vector files both suites
 * read (eutaxy/cloudflare/bindings/ladders.json names the core ladder of each operation and
 * holds the rest under policies, core's vectors/ladders.json holds the ladders).
 * @param {string} kind @returns {{ladders: Record<string, string[]>, [rest: string]: unknown}}
 */
export function kindPolicy(kind) {
  const read = (/** @type {string} */ file) => JSON.parse(readFileSync(path.join(REPO, file), "utf8"));
  const { ladders } = read("packages/core/src/eutaxy/core/vectors/ladders.json");
  const rows = read("packages/cloudflare/src/eutaxy/cloudflare/bindings/ladders.json");
  const operations = rows.kinds[kind];
  return {
    ladders: Object.fromEntries(Object.entries(operations).map(([op, ladder]) => [op, ladders[/** @type {string} */ (ladder)]])),
    ...(rows.policies[kind] ?? {}),
  };
}

/**
 * The registered binding kinds' entries as Python's records write them (eutaxy.cloudflare.bindings,
 * BindingKind.load_entry), without bindings: `kinds({r2: {BUCKET: ["bucket", step]}})` adds them,
 * each with its resource, its setup step (null: none) and its settings, under the kind's
 * Miniflare option too.
 * @param {Record<string, Record<string, [string, object | null, object?]>>} [bound]
 */
export function kinds(bound = {}) {
  const fixed = {
    d1: { label: "D1", title: "D1", setupStep: "d1_schema", withoutSetup: "unsupported", option: "d1Databases", policy: kindPolicy("d1") },
    kv: { label: "KV", title: "KV", setupStep: "kv_namespace", withoutSetup: "empty", option: "kvNamespaces", policy: kindPolicy("kv") },
    r2: { label: "R2", title: "R2", setupStep: "r2_bucket", withoutSetup: "unsupported", option: "r2Buckets", policy: kindPolicy("r2") },
    // A queue consumer needs no setup step.
    queue_consumer: { label: "Queue", title: "Queue", setupStep: null, withoutSetup: "empty", option: null, policy: kindPolicy("queue_consumer") },
    // A queue producer needs none either.
    queue_producer: { label: "Queue", title: "Queue", setupStep: null, withoutSetup: "empty", option: null, policy: kindPolicy("queue_producer") },
    durable_object: { label: "DO", title: "Durable Object", setupStep: "durable_object", withoutSetup: "unsupported", option: "durableObjects", policy: kindPolicy("durable_object") },
    assets: { label: "Assets", title: "Assets", setupStep: null, withoutSetup: "empty", option: null, policy: kindPolicy("assets") },
    // A service binding is scripted by its setup step; no Miniflare binding is behind it.
    service: { label: "Service", title: "service", setupStep: "service", withoutSetup: "unsupported", option: null, policy: kindPolicy("service") },
  };
  return Object.fromEntries(Object.entries(fixed).map(([name, { option, ...kind }]) => {
    const bindings = Object.entries(bound[name] ?? {});
    // A Durable Object binding goes to Miniflare as its class and storage, any other as its resource.
    const value = (/** @type {[string, object | null, any?]} */ [resource, , settings]) =>
      name === "durable_object" ? { className: resource, useSQLite: settings?.sqlite ?? false } : resource;
    return [name, {
      ...kind,
      miniflare: option === null ? {} : { [option]: Object.fromEntries(bindings.map(([binding, bound]) => [binding, value(bound)])) },
      module: null,
      section: null,
      classes: name === "durable_object" ? [...new Set(bindings.map(([, [resource]]) => resource))].sort() : [],
      bindings: Object.fromEntries(bindings.map(([binding, [resource, setup, settings = {}]]) => [
        binding, { resource, setup, setupHint: kind.setupStep === null ? null : `${kind.setupStep}(${JSON.stringify(binding)}, ${name === "d1" ? '"./schema.sql"' : "{...}"})`, settings },
      ])),
    }];
  }));
}

/**
 * The queue consumer kind's entry for `consumers` (queue -> its settings, `{maxRetries,
 * retryDelaySeconds, maxBatchSize}`), as Python's record writes it.
 * @param {Record<string, {maxRetries: number, retryDelaySeconds: number, maxBatchSize: number}>} consumers
 */
export function consumerKind(consumers) {
  return kinds({ queue_consumer: Object.fromEntries(Object.entries(consumers).map(([queue, settings]) => [queue, [queue, null, settings]])) }).queue_consumer;
}

/**
 * The queue producer kind's entry for `producers` (binding -> its settings, `{queue,
 * deliveryDelaySeconds}`), as Python's record writes it.
 * @param {Record<string, {queue: string, deliveryDelaySeconds: number}>} producers
 */
export function producerKind(producers) {
  return kinds({ queue_producer: Object.fromEntries(Object.entries(producers).map(([binding, settings]) => [binding, [settings.queue, null, settings]])) }).queue_producer;
}

/**
 * A D1 binding's setup as Python's record writes it: its schema files, path and text, and no seeded rows.
 * @param {...string} files absolute paths, in the order applied
 */
export function d1Setup(...files) {
  return { kind: "d1_schema", binding: "", files: files.map((file) => ({ path: file, text: readFileSync(file, "utf8") })), rows: {} };
}

/**
 * The load message for a fixture folder's `worker.ts`: `worker` adds to (or overrides) a
 * Worker with no bindings, and each of its D1 databases (`d1Databases`, binding -> database
 * id) gets the folder's `schema.sql`, as the D1 kind's entry in `kinds`; its consumed queues
 * (`queueConsumers`, queue -> settings) are the queue consumer kind's entry, its producer
 * bindings (`queueProducers`, binding -> settings) the queue producer kind's.
 * @param {string} fixture the fixture folder
 * @param {{d1Databases?: Record<string, string>, queueConsumers?: Record<string, any>, queueProducers?: Record<string, any>, kinds?: Record<string, any>, [name: string]: unknown}} worker
 */
export function fixtureLoad(fixture, worker) {
  // A test's own `kinds` (an R2 bucket's) keeps its entries; the D1 entry is the databases', the queues' the consumers' and producers'.
  const { d1Databases = {}, queueConsumers = {}, queueProducers = {}, kinds: given = kinds(), ...rest } = worker;
  /** @type {Record<string, [string, object | null]>} */
  const d1 = Object.fromEntries(Object.entries(d1Databases).map(([binding, id]) => [binding, [id, { ...d1Setup(path.join(fixture, "schema.sql")), binding }]]));
  return {
    op: "load",
    worker: {
      entry: path.join(fixture, "worker.ts"),
      root: fixture,
      compatibilityDate: "2025-09-01",
      compatibilityFlags: [],
      ladders: platformLadders(),
      kinds: { ...given, d1: kinds({ d1 }).d1, queue_consumer: consumerKind(queueConsumers), queue_producer: producerKind(queueProducers) },
      bindings: [],
      define: {},
      alias: {},
      rules: [],
      tsconfig: null,
      noBundle: null,
      accessHeaderPrefix: null,
      cpuLimitMs: 30000,
      callees: [],
      specs: [],
      vars: {},
      ...rest,
    },
    setup: [],
  };
}

/** The load message for the payments fixture. */
export function paymentsLoad(extra = {}) {
  return fixtureLoad(FIXTURE, {
    d1Databases: { DB: "payments-db" },
    queueConsumers: { payments: { maxRetries: 3, retryDelaySeconds: 0, maxBatchSize: 2 } },
    bindings: [{ kind: "ai", name: "AI" }],
    ...extra,
  });
}

/**
 * The host process a test file shares: it starts now, loads `load` before the file's tests
 * run and is closed after them.
 * @param {object} load the load message
 * @returns {HostProcess}
 */
export function useHost(load) {
  const host = new HostProcess();
  before(async () => {
    await host.ok(load);
  });
  after(async () => {
    await host.close();
  });
  return host;
}

/**
 * The plan of a Run made in Node with no host (the scheduler's and the run's own tests): no
 * drive, no faults, one invocation at a time unless `bounds` says otherwise.
 * @param {{maxConcurrentInvocations?: number, effectHangMs?: number}} [bounds]
 */
export function barePlan(bounds = {}) {
  return {
    protocol: 1,
    scenario: { bounds: { maxConcurrentInvocations: 1, budgetMs: 1000, effectHangMs: 1000, maxRedeliveries: 0, ...bounds } },
    streams: { globals: [1, 2, 3, 4], turns: [5, 6, 7, 8] },
    prefix: [],
    policy: { kind: "first" },
    maxFaults: 0,
    maxShortBatches: 0,
  };
}

/**
 * A run plan over one drive, as Python sends it; the tests' plan builders fill in their scenario.
 * @param {{seed: string, name: string, drive: object, externals?: object[], bounds: object, maxFaults: number, maxShortBatches?: number,
 *   policy?: object, prefix?: number[], globals?: number[], turns?: number[]}} plan
 */
export function drivePlan(plan) {
  return {
    protocol: 1,
    seed: plan.seed,
    scenario: { name: plan.name, platform: "cloudflare", drive: plan.drive, externals: plan.externals ?? [], bounds: plan.bounds },
    streams: { globals: plan.globals ?? [1, 2, 3, 4], turns: plan.turns ?? [5, 6, 7, 8] },
    prefix: plan.prefix ?? [],
    policy: plan.policy ?? { kind: "first" },
    maxFaults: plan.maxFaults,
    maxShortBatches: plan.maxShortBatches ?? 0,
  };
}

/**
 * A run plan over one queue drive; the fixtures' plan builders fill in their scenario.
 * @param {{seed: string, name: string, queue: string, events: object[], bounds: object, maxFaults: number, batchSize?: number, maxShortBatches?: number,
 *   policy?: object, prefix?: number[], globals?: number[], turns?: number[]}} plan
 */
export function queuePlan(plan) {
  const { queue, events, batchSize, ...rest } = plan;
  return drivePlan({ ...rest, drive: { kind: "queue", name: queue, events, batchSize: batchSize ?? 1 } });
}

/**
 * A run plan over the payments queue.
 * @param {{events?: {id: string, body: unknown}[], policy?: object, prefix?: number[], maxFaults?: number,
 *   globals?: number[], bounds?: object}} [options]
 */
export function paymentsPlan(options = {}) {
  return queuePlan({
    seed: "test",
    name: "payments",
    queue: "payments",
    events: options.events ?? [
      { id: "msg-1", body: { orderId: "o-1", amountCents: 1200 } },
      { id: "msg-2", body: { orderId: "o-2", amountCents: 500 } },
    ],
    bounds: { maxFaultsPerRun: 1, maxRedeliveries: 2, maxConcurrentInvocations: 1, budgetMs: 5000, effectHangMs: 5000, ...(options.bounds ?? {}) },
    policy: options.policy,
    prefix: options.prefix,
    globals: options.globals,
    maxFaults: options.maxFaults ?? 1,
  });
}

export class HostProcess {
  constructor() {
    this.child = spawn(process.execPath, [path.join(RUNTIME_DIR, "host.mjs")], {
      env: { ...process.env, EUTAXY_NODE_MODULES: NODE_MODULES },
      stdio: ["pipe", "pipe", "pipe"],
    });
    /** @type {string[]} */
    this.stderr = [];
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk) => {
      this.stderr.push(chunk);
      if (process.env.EUTAXY_TEST_VERBOSE) process.stderr.write(chunk);
    });
    /** @type {string[]} */
    this.rawLines = [];
    /** @type {Map<unknown, (answer: any) => void>} */
    this.waiting = new Map();
    this.nextId = 0;
    readline.createInterface({ input: this.child.stdout }).on("line", (line) => {
      this.rawLines.push(line);
      const answer = JSON.parse(line);
      const wake = this.waiting.get(answer.id);
      this.waiting.delete(answer.id);
      if (wake) wake(answer);
    });
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
  }

  /** @param {object} message @returns {Promise<any>} */
  request(message) {
    const id = ++this.nextId;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.stdin.write(JSON.stringify({ ...message, id }) + "\n");
    });
  }

  /** @param {object} message */
  async ok(message) {
    const answer = await this.request(message);
    if (!answer.ok) throw new Error(`host answered an error: ${answer.error}\n${this.stderr.join("")}`);
    return answer;
  }

  /** @param {object} plan */
  async run(plan) {
    return (await this.ok({ op: "run", plan })).result;
  }

  /** Run `plan`, which must complete (the assertion shows how it ended otherwise); its result. */
  async runCompleted(plan) {
    const result = await this.run(plan);
    assert.deepEqual(result.end, { kind: "completed" });
    return result;
  }

  async close() {
    this.child.stdin.write(JSON.stringify({ op: "close" }) + "\n");
    this.child.stdin.end();
    return this.exited;
  }
}
