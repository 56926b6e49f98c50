// @ts-check
/**
 * The Durable Object record: the caller's side of the objects workerd runs.
 *
 * The objects are the real ones (their storage, transactions, coalesced writes,
 * blockConcurrencyWhile and gates are the runtime's own); the bundle exports each of the
 * Worker's classes wrapped (objects.mjs), so the object's own binding calls are effects of the
 * call that entered it and the wrapper can clear, seed and read its storage without
 * constructing the user's class. This file is the boundary the Worker crosses:
 *
 * - Entry (its kind's, `durable_object`, as Python's record eutaxy/cloudflare/bindings/durable_object.py
 *   writes it): `{setup, settings: {className, sqlite}}` per binding, `setup` the `durable_object` step's
 *   `{objects, sql}` (a namespace without one is the index's trap, bindings/index.mjs); the
 *   kind's policy gives the ladders of a stub call, an alarm and a WebSocket message
 *   (`ladderOf`) and the alarm's retry delays, one per retry (`alarmRetryDelaysMs`).
 * - Proxy: the namespace. idFromName, idFromString, newUniqueId, get and getByName give ids
 *   and stubs as the runtime does; newUniqueId() is a named id whose name is drawn from the
 *   run's random stream (`unique-<32 hex digits>`), so it repeats on replay and the reset finds
 *   its object, and the Worker sees that name on `id.name`. Each stub call is one `io` effect
 *   at `DO:<binding>`, op the method (or property) name, `fetch` for stub.fetch(), payload
 *   `{args: {object, args}}` for a call and `{args: {object, property: true}}` for an awaited
 *   property, result `{value}` (fetch: `{status, ok, body}`). The write ladder, with the seeds'
 *   meanings: crash_before and error never reached the object; ambiguous: the object ran the
 *   call and the answer was lost; crash_after: the caller died after the call.
 * - Reset: every object whose code ran since the last reset (the wrapper notes each call that
 *   enters one, in a run or on the differential runner's raw side) and, on the first reset of
 *   a load, every seeded object, is cleared (key-value, SQL and its alarm),
 *   seeded and evicted (ctx.abort()), so it starts from storage alone. Objects no run reached
 *   are not visited: the cost follows what runs touch, not how many objects ever existed.
 * - Settle (the differential runner's raw side only, where objects keep their real alarms):
 *   after the last attempt, every object reached since the reset is asked, every
 *   RAW_SETTLE_POLL_MS of real time and for at most the wait the raw side gives, for its real
 *   alarm and the calls of the user's code in progress in it; it is settled when it has
 *   neither. One not settled by then is named in the answer, which the raw run reports as
 *   not completed, so a real alarm that never fires is a difference, not a hang.
 * - Snapshot: per object, sorted by name, its key-value rows `{key, value}` under its name and,
 *   for a SQLite-backed class, each user table under `<object>/<table>`; rows sorted by
 *   canonical JSON. An object no call reached shows what its reset read back after seeding.
 *
 * UNSUPPORTED, each with its cause: a namespace without a `durable_object` setup step
 * (`binding_without_setup`), a stub call from inside an object (`object_binding_call`: the
 * object reached only through another object's binding), `jurisdiction()` or a unique id
 * asked for one (`jurisdiction`), an argument or result that is not plain data such as an RPC
 * capability (`not_plain_data`). In a concurrent run calls into objects are modelled, into one
 * object from several invocations too: each call is a turn, and so is each outbound effect the
 * object's code makes during it (effects.mjs parks it inside the call; the object's input gate
 * is open there, so the next call or its alarm may enter); storage operations are no turns, nor
 * is anything inside blockConcurrencyWhile (objects.mjs notes the gate held).
 */

import { assert } from "../assert.mjs";
import { compareText, toJson } from "../canonical.mjs";
import { loggedOrNull as recorded, plainData } from "../values.mjs";
import { effectPoint, never, UnsupportedSignal } from "../effects.mjs";
import { kindBindings, ladderOf } from "./policy.mjs";
import { UserFacingError } from "../errors.mjs";
import { realTimer } from "../patch.mjs";
import { noteUpgrade, takeAccepted } from "../upgrades.mjs";
import { maxRedeliveriesOf, redeliveryStop } from "../queue.mjs";
import { afterWorkSource } from "../after_work.mjs";

/** The wrapper's own methods (objects.mjs), out of the way of any name a Worker would use. */
export const OBJECT_RESET = "__eutaxyReset";
export const OBJECT_SNAPSHOT = "__eutaxySnapshot";
export const OBJECT_EVICT = "__eutaxyEvict";
export const OBJECT_ALARM = "__eutaxyAlarm";
export const OBJECT_RAW_STATE = "__eutaxyRawState";
export const OBJECT_WEBSOCKET = "__eutaxyWebSocket";

/**
 * The reason a crash inside an object resets it with (objects.mjs, `ctx.abort`): a text, since
 * workerd hands every call it breaks an Error whose message is the reason as text.
 */
export const OBJECT_RESET_REASON = "eutaxy: the invocation crashed inside this Durable Object; it is reset";

/** How often the raw side's settle asks the reached objects whether their real alarms are done. */
const RAW_SETTLE_POLL_MS = 10;

/** The kind's name: its entry in the runtime config's `kinds`. */
const KIND = "durable_object";

/**
 * The ladder `op` takes (`call`, `alarm`, `webSocketMessage`), from the kind's policy in its
 * load-message entry (Python's record owns it; bindings/ladders.json holds the rows). An
 * alarm's: crash_before (it never ran), crash_after (it ran and committed, and counts as
 * failed), error (it threw); no ambiguous, since nobody waits for an alarm's answer.
 * @param {any} config the runtime config @param {string} op @returns {readonly string[]}
 */
export function objectLadder(config, op) {
  return ladderOf(config.kinds[KIND], op);
}

/**
 * Each retry's delay of a failed alarm, from the kind's policy: Cloudflare retries a failed
 * alarm up to six times, 2 s, 4 s, 8 s, ... after (Python's record owns the rule).
 * @param {any} config the runtime config @returns {readonly number[]}
 */
export function alarmRetryDelays(config) {
  const delays = config.kinds[KIND].policy?.alarmRetryDelaysMs;
  if (!Array.isArray(delays)) throw new Error(`the load message's Durable Object policy gives no alarmRetryDelaysMs (${JSON.stringify(config.kinds[KIND].policy)})`);
  return delays;
}

/**
 * The Worker's Durable Object bindings, each its entry with its settings (its class and
 * storage) read out: `[name, entry]` in the kind entry's order, as the record owns them.
 * @param {any} config @returns {[string, ObjectEntry][]}
 */
function objectBindings(config) {
  return kindBindings(config, KIND).map(([name, entry]) => [name, { ...entry, ...entry.settings }]);
}

/** The Worker's Durable Object bindings by name. @param {any} config @returns {Record<string, ObjectEntry>} */
function objectEntries(config) {
  return Object.fromEntries(objectBindings(config));
}

/**
 * @typedef {{objects: Record<string, Record<string, unknown>>, sql: Record<string, {schema: string, rows: Record<string, object[]>}>}} ObjectSetup
 * @typedef {{className: string, sqlite: boolean, setup: ObjectSetup | null}} ObjectEntry
 * @typedef {{kv: {key: string, value: unknown}[], tables: {table: string, rows: unknown[]}[]}} ObjectState
 */

/**
 * Per class, the objects whose code ran since their class's last reset (noted by the wrapper,
 * objects.mjs, at every call that enters one, in a run or on the differential runner's raw
 * side): id string -> the object's name. @type {Map<string, Map<string, string>>}
 */
const reached = new Map();

/** An object of `className` ran code of the user's: the next reset resets it. @param {string} className @param {any} id */
export function noteReached(className, id) {
  let objects = reached.get(className);
  if (!objects) reached.set(className, (objects = new Map()));
  const key = String(id);
  if (!objects.has(key)) objects.set(key, id.name ?? names.get(key) ?? key);
}
/** Per binding, what each seeded object's storage read back after its last reset. @type {Map<string, Map<string, ObjectState>>} */
const seeded = new Map();
/** Names the runtime made ids for, by id string, so an id rebuilt with idFromString keeps its name. @type {Map<string, string>} */
const names = new Map();

/**
 * One object's alarm in a run, as Eutaxy keeps it in place of the runtime's (objects.mjs
 * takes setAlarm, getAlarm and deleteAlarm over): at most one per object, so a later
 * setAlarm replaces it; it lives on the run, not the instance, so it survives eviction.
 * Every change (set, delete) starts a new `generation`: a pending retry or an alarm a change
 * superseded is gone before any fault could apply to it.
 * @typedef {{binding: string, object: string, key: string, time: number | null, generation: number,
 *   retryCount: number, firings: number, order: number, lastInvocation?: string}} Alarm
 */

/**
 * The calls into each object, per run, by `<class>/<id string>`: the object's code
 * (objects.mjs) runs as the invocation whose call it hosts, which workerd's RPC does not
 * carry into the object. `arriving` holds the calls sent to the object that have not entered
 * it yet, in the order sent (workerd delivers one object's calls in that order, and a turn
 * scheduler sends the next only once the one before has entered and parked or answered);
 * `inside` the callers whose calls are in progress, innermost last (a call that never reaches
 * the user's code is still its caller's for its length).
 * @typedef {{arriving: import("../effects.mjs").Invocation[], inside: import("../effects.mjs").Invocation[]}} ObjectEntrant
 * @type {WeakMap<import("../run.mjs").Run, Map<string, ObjectEntrant>>}
 */
const entrants = new WeakMap();

/** @param {string} className @param {any} id */
function objectKey(className, id) {
  return `${className}/${String(id)}`;
}

/**
 * The invocation whose call into the object of `className` and `id` is entering it now: the
 * first call sent and not yet entered (it has entered from here on), or else the innermost
 * call in progress.
 * @param {import("../run.mjs").Run} run @param {string} className @param {any} id
 */
export function objectCaller(run, className, id) {
  const entrant = entrants.get(run)?.get(objectKey(className, id));
  if (!entrant) return null;
  return entrant.arriving.shift() ?? entrant.inside.at(-1) ?? null;
}

/**
 * Run `perform`, `inv`'s call into the object of `className` and `id`, with the call noted as
 * `inv`'s (objectCaller). Calls of several invocations may be in one object at once: in a
 * concurrent run the object's own outbound I/O during a call is a turn (effects.mjs), and
 * there, as in workerd, where the input gate is open, the next call enters.
 * @param {import("../run.mjs").Run} run @param {import("../effects.mjs").Invocation} inv
 * @param {string} className @param {any} id @param {string} _where `<binding>/<object>.<op>`
 * @param {() => Promise<unknown>} perform @returns {Promise<unknown>}
 */
export async function callInto(run, inv, className, id, _where, perform) {
  let objects = entrants.get(run);
  if (!objects) entrants.set(run, (objects = new Map()));
  const key = objectKey(className, id);
  let entrant = objects.get(key);
  if (!entrant) objects.set(key, (entrant = { arriving: [], inside: [] }));
  const entered = entrant;
  entered.arriving.push(inv);
  entered.inside.push(inv);
  try {
    return await perform();
  } finally {
    // A call that never reached the user's code (a refusal, the reset's error) leaves no arrival behind.
    const arriving = entered.arriving.indexOf(inv);
    if (arriving >= 0) entered.arriving.splice(arriving, 1);
    const inside = entered.inside.lastIndexOf(inv);
    if (inside >= 0) entered.inside.splice(inside, 1);
  }
}

/** Each run's alarms, by `<class>/<id string>`. @type {WeakMap<import("../run.mjs").Run, Map<string, Alarm>>} */
const runAlarms = new WeakMap();

/** @param {import("../run.mjs").Run} run */
function alarmsOf(run) {
  let alarms = runAlarms.get(run);
  if (!alarms) runAlarms.set(run, (alarms = new Map()));
  return alarms;
}

/**
 * The alarm of one object in the run (created empty): the object is named by the binding of
 * the first namespace with a setup step over its class, as its events are.
 * @param {import("../run.mjs").Run} run @param {string} className @param {any} id the object's DurableObjectId
 * @returns {Alarm}
 */
export function objectAlarm(run, className, id) {
  const key = String(id);
  const alarms = alarmsOf(run);
  const known = alarms.get(`${className}/${key}`);
  if (known) return known;
  const entries = /** @type {[string, ObjectEntry][]} */ (Object.entries(objectEntries(run.config)));
  const binding = entries.find(([, entry]) => entry.className === className && entry.setup)?.[0];
  assert(binding !== undefined, () => `an object of class ${className} runs, but no namespace with a setup step binds that class`);
  /** @type {Alarm} */
  const alarm = { binding, object: id.name ?? names.get(key) ?? key, key, time: null, generation: 0, retryCount: 0, firings: 0, order: 0 };
  alarms.set(`${className}/${key}`, alarm);
  return alarm;
}

/** Set (a time) or delete (null) an object's alarm: a new generation. @param {import("../run.mjs").Run} run @param {Alarm} alarm @param {number | null} time */
export function changeAlarm(run, alarm, time) {
  alarm.time = time;
  alarm.generation++;
  alarm.retryCount = 0;
  alarm.order = nextOrder(run);
}

/** A run-wide counter: alarms due at one time fire in the order they were set. @type {WeakMap<import("../run.mjs").Run, number>} */
const orders = new WeakMap();
/** @param {import("../run.mjs").Run} run */
function nextOrder(run) {
  const next = (orders.get(run) ?? 0) + 1;
  orders.set(run, next);
  return next;
}

/** @param {string} fault */
function alarmError(fault) {
  return new Error(`Durable Object alarm failed (eutaxy: ${fault} injected; the alarm did not run)`);
}

/**
 * The alarms' delivery, as a scheduler source beside the drive's: the earliest due alarm
 * (by time, then the order it was set) fires once the clock reaches it, each attempt one
 * invocation `DO:<binding>/<object>/alarm.<n>#<attempt>` whose one point is `DO:<binding>`
 * `alarm` `{args: {object, retryCount}}`. An object fires at most `bounds.alarmsPerObject`
 * alarms per run (retries of one alarm are that alarm); past that its alarm stays pending,
 * and the run ends with a cut naming it (`alarmCuts`). A failed alarm is retried up to
 * as many times as the kind's policy gives delays (six, as Cloudflare does); `bounds.maxRedeliveries` below that cuts the
 * retries (a cut, not the end of the alarm).
 * @param {import("../run.mjs").Run} run
 * @returns {import("../scheduler/scheduler.mjs").Source}
 */
function alarmSource(run) {
  const cap = run.scenario.bounds?.alarmsPerObject;
  const maxRedeliveries = maxRedeliveriesOf(run);
  const pending = () => [...alarmsOf(run).values()]
    .filter((alarm) => alarm.time !== null && (alarm.retryCount > 0 || alarm.firings < cap))
    .sort((a, b) => /** @type {number} */ (a.time) - /** @type {number} */ (b.time) || a.order - b.order);
  const due = () => pending().find((alarm) => /** @type {number} */ (alarm.time) <= run.clock.now) ?? null;
  return {
    next: () => {
      const alarm = due();
      return alarm ? `DO:${alarm.binding}/${alarm.object}/alarm` : null;
    },
    wake: () => pending()[0]?.time ?? null,
    start: async () => {
      assert(Number.isInteger(cap) && cap >= 0, () => `the plan's bounds carry alarmsPerObject ${JSON.stringify(cap)}, not a non-negative integer (define_scenario writes it)`);
      const alarm = /** @type {Alarm} */ (due());
      const { generation, retryCount } = alarm;
      if (retryCount === 0) alarm.firings++;
      alarm.time = null;
      const real = run.realEnv[alarm.binding];
      const id = real.idFromString(alarm.key);
      const stub = real.get(id);
      const className = objectEntries(run.config)[alarm.binding].className;
      const inv = run.startInvocation(`DO:${alarm.binding}/${alarm.object}/alarm.${alarm.firings}#${retryCount + 1}`);
      alarm.lastInvocation = inv.id;
      const info = { retryCount, isRetry: retryCount > 0 };
      const done = effectPoint(run, inv, {
        kind: "io", hosts: true, target: `DO:${alarm.binding}`, op: "alarm", args: { object: alarm.object, retryCount },
        ladder: objectLadder(run.config, "alarm"), injectedError: alarmError, summarize: () => ({}),
        perform: () => callInto(run, inv, className, id, `${alarm.binding}/${alarm.object}.alarm`, () => stub[OBJECT_ALARM](info)),
      });
      const outcome = await run.scheduler.settle(inv, done);
      run.endInvocation(inv);
      if (run.stopped) return true;
      // A crash drops the instance, so in-memory state is lost as in a real crash.
      if (outcome.kind === "crashed") await Promise.resolve(stub[OBJECT_EVICT]()).catch(() => {});
      if (outcome.kind === "returned" || alarm.generation !== generation) return false;
      const retryDelays = alarmRetryDelays(run.config);
      const stop = redeliveryStop(retryCount + 1, retryDelays.length, maxRedeliveries);
      if (stop === null) {
        alarm.retryCount = retryCount + 1;
        alarm.time = run.clock.now + retryDelays[retryCount];
        alarm.order = nextOrder(run);
      } else {
        if (stop === "cut") {
          run.recordCut({ bound: "maxRedeliveries", where: `DO:${alarm.binding}/${alarm.object}`, invocation: inv.id, left: [`alarm.${alarm.firings}`], limit: /** @type {number} */ (maxRedeliveries), platformLimit: retryDelays.length });
        }
        alarm.retryCount = 0;
      }
      return false;
    },
  };
}

/**
 * At the end of a run: a cut for each object whose alarm is set but did not fire because the
 * object had fired `bounds.alarmsPerObject` alarms (Cloudflare would fire it).
 * @param {import("../run.mjs").Run} run
 */
export function alarmCuts(run) {
  const cap = run.scenario.bounds?.alarmsPerObject;
  for (const alarm of [...(runAlarms.get(run)?.values() ?? [])].sort((a, b) => a.order - b.order)) {
    if (alarm.time === null || alarm.retryCount > 0 || alarm.firings < cap) continue;
    run.recordCut({ bound: "alarmsPerObject", where: `DO:${alarm.binding}/${alarm.object}`, invocation: alarm.lastInvocation ?? "", left: [`alarm.${alarm.firings + 1}`], limit: cap });
  }
}

/** The objects of `className` reached since its last reset (for tests and the bench). @param {string} className */
export function reachedObjects(className) {
  return [...(reached.get(className)?.values() ?? [])];
}

/** @param {any} id @returns {string} */
function objectName(id) {
  const key = String(id);
  return id.name ?? names.get(key) ?? key;
}

/**
 * The error a call across to another isolate throws for an injected fault: `ambiguous` (the
 * `callee` ran the call, the answer was lost) or `error` (the call never reached it), as the
 * runtime's lost connection reads, retryable. A stub call's and a service binding call's.
 * @param {string} fault @param {string} callee how the message names what was called ("object")
 */
export function lostCall(fault, callee) {
  const error = fault === "ambiguous"
    ? new Error(`Network connection lost. (eutaxy: ambiguous outcome injected; the ${callee} ran the call)`)
    : new Error(`Network connection lost. (eutaxy: error injected; the call never reached the ${callee})`);
  Object.assign(error, { retryable: true });
  return error;
}

/** @param {string} fault */
function injectedError(fault) {
  return lostCall(fault, "object");
}

/** The run was just marked UNSUPPORTED (`_marked`): stop the caller. @param {import("../run.mjs").Run} run @param {void} _marked */
function stopped(run, _marked) {
  return new UnsupportedSignal(run.unsupported?.detail ?? "a Durable Object use outside the model");
}

/**
 * The namespace one invocation sees.
 * @param {import("../run.mjs").Run} run @param {import("../effects.mjs").Invocation} inv
 * @param {string} binding @param {any} real the real DurableObjectNamespace
 */
function makeNamespace(run, inv, binding, real) {
  const inside = Boolean(/** @type {any} */ (inv).hosted);
  /** @param {string} name */
  const named = (name) => {
    const id = real.idFromName(name);
    names.set(String(id), name);
    return id;
  };
  /** @param {any} id @param {unknown} [options] */
  const get = (id, options) => {
    if (inside) {
      throw stopped(run, run.markUnsupported("object_binding_call",
        `a Durable Object called ${binding} (object ${objectName(id)}) through its own binding; an object reached only through another object's binding is not modelled`));
    }
    return makeStub(run, inv, binding, real.get(id, options), id);
  };
  return {
    /** @param {string} name */
    idFromName: (name) => named(String(name)),
    /** @param {string} text */
    idFromString: (text) => real.idFromString(text),
    /** @param {{jurisdiction?: string}} [options] */
    newUniqueId(options) {
      if (options?.jurisdiction !== undefined) {
        throw stopped(run, run.markUnsupported("jurisdiction", `Durable Object binding ${binding}: newUniqueId({jurisdiction: ${JSON.stringify(options.jurisdiction)}}) is not modelled`));
      }
      run.scheduler.noteMore("randomness");
      const stream = run.globals.stream;
      const hex = [0, 1, 2, 3].map(() => stream.nextU32().toString(16).padStart(8, "0")).join("");
      return named(`unique-${hex}`);
    },
    get,
    /** @param {string} name @param {unknown} [options] */
    getByName: (name, options) => get(named(String(name)), options),
    /** @param {string} where */
    jurisdiction(where) {
      throw stopped(run, run.markUnsupported("jurisdiction", `Durable Object binding ${binding}: jurisdiction(${JSON.stringify(where)}) namespaces are not modelled`));
    },
  };
}

/**
 * The stub one invocation holds: each call, awaited property and fetch() one effect point.
 * @param {import("../run.mjs").Run} run @param {import("../effects.mjs").Invocation} inv
 * @param {string} binding @param {any} realStub @param {any} id
 */
function makeStub(run, inv, binding, realStub, id) {
  const target = `DO:${binding}`;
  const className = objectEntries(run.config)[binding].className;
  const object = objectName(id);
  /**
   * @param {string} op @param {object} args @param {() => Promise<unknown>} perform
   * @param {(value: any) => unknown} summarize
   */
  const point = (op, args, perform, summarize) => {
    return effectPoint(run, inv, {
      kind: "io", hosts: true, target, op, args, ladder: objectLadder(run.config, "call"), injectedError, summarize,
      perform: async () => {
        try {
          return await callInto(run, inv, className, id, `${binding}/${object}.${op}`, perform);
        } catch (error) {
          // A crash inside the object reset it (ctx.abort()) and the call ends with the
          // reset's error, recorded as its result; the dead caller hears nothing. This ending
          // runs on the caller's side, where it wakes the caller's waits (the crash's own
          // wake-up was made inside the object, where workerd does not deliver it to them).
          throw error;
        }
      },
    });
  };
  /** @param {string} op @param {unknown} value */
  const plainResult = (op, value) => {
    if (!plainData(value)) {
      run.markUnsupported("not_plain_data", `Durable Object ${binding}/${object}.${op} answered with something that is not plain data (an RPC capability, a function, a class instance); calls on it would bypass the proxy`);
    }
    return value;
  };
  /** @param {string} op */
  const member = (op) => {
    /** @param {unknown[]} args */
    const call = (...args) => {
      if (!plainData(args)) {
        run.markUnsupported("not_plain_data", `Durable Object ${binding}/${object}.${op} was called with an argument that is not plain data (a function, a stub, a class instance)`);
        return never();
      }
      return point(op, { object, args: recorded(args) }, async () => plainResult(op, await realStub[op](...args)), (value) => ({ value: recorded(value) }));
    };
    /** @param {(value: unknown) => unknown} [resolve] @param {(error: unknown) => unknown} [reject] */
    call.then = (resolve, reject) =>
      point(op, { object, property: true }, async () => plainResult(op, await realStub[op]), (value) => ({ value: recorded(value) })).then(resolve, reject);
    return call;
  };
  /** @param {RequestInfo} input @param {RequestInit} [init] */
  const fetch = (input, init) => {
    const request = new Request(input, init);
    /** @type {{status: number, ok: boolean, body: string}} */
    let seen = { status: 0, ok: false, body: "" };
    return point("fetch", { object, args: [{ method: request.method, url: request.url }] }, async () => {
      const response = await realStub.fetch(request);
      const sockets = takeAccepted(inv);
      const body = await response.text();
      seen = { status: response.status, ok: response.ok, body };
      // A WebSocket upgrade the object answered: its client end goes on to the Worker (websocket.mjs).
      const webSocket = response.webSocket ?? null;
      if (webSocket) noteUpgrade(webSocket, { binding, className, id, object, invocation: inv.id, client: webSocket, sockets });
      return new Response(response.status === 101 || response.status === 204 || response.status === 304 ? null : body,
        { status: response.status, statusText: response.statusText, headers: response.headers, ...(webSocket ? { webSocket } : {}) });
    }, () => seen);
  };
  return new Proxy(Object.create(null), {
    get(_target, property) {
      if (typeof property === "symbol" || property === "then") return undefined;
      if (property === "id") return id;
      if (property === "name") return id.name;
      if (property === "fetch") return fetch;
      return member(property);
    },
  });
}

/**
 * What the reset seeds into one object: its key-value entries and, for a SQLite-backed
 * class, its schema and rows.
 * @param {ObjectEntry} entry @param {string} object
 */
function seedOf(entry, object) {
  const setup = /** @type {ObjectSetup} */ (entry.setup);
  return { kv: setup.objects?.[object] ?? {}, sql: setup.sql?.[object] ?? null, sqlite: entry.sqlite };
}

/** Rows sorted by their canonical JSON. @param {unknown[]} rows */
function sortedRows(rows) {
  return rows.map((row) => /** @type {[string, unknown]} */ ([toJson(row), row])).sort((a, b) => compareText(a[0], b[0])).map(([, row]) => row);
}

/** @type {import("./record.mjs").BindingRecord} */
export const durableObject = {
  kind: "durable_object",
  names: objectBindings,
  proxy: (run, inv, name, real) => makeNamespace(run, inv, name, real),
  // An object's work after its answer before any alarm (a sequential run takes the first ready).
  events: (run) => [afterWorkSource(run), alarmSource(run)],
  async reset(name, real, entry) {
    /** @type {ObjectEntry} */
    const objectEntry = entry;
    if (!objectEntry.setup) return;
    const first = !seeded.has(name);
    /** @type {Map<string, ObjectState>} */
    const reads = seeded.get(name) ?? new Map();
    const seeds = new Set([...Object.keys(objectEntry.setup.objects ?? {}), ...Object.keys(objectEntry.setup.sql ?? {})]);
    /** @type {Map<string, string>} id string -> object name: every object to reset */
    const targets = new Map(reached.get(objectEntry.className) ?? []);
    if (first) for (const object of seeds) targets.set(String(real.idFromName(object)), object);
    for (const [key, object] of [...targets].sort(([, a], [, b]) => compareText(a, b))) {
      const stub = real.get(real.idFromString(key));
      /** @type {ObjectState | {seedError: string}} */
      const answer = await stub[OBJECT_RESET](seeds.has(object) ? seedOf(objectEntry, object) : { kv: {}, sql: null, sqlite: objectEntry.sqlite });
      if ("seedError" in answer) {
        throw new UserFacingError(`setup durable_object(${JSON.stringify(name)}): the sql seed of object ${JSON.stringify(object)} does not apply: ${answer.seedError}`);
      }
      const state = answer;
      if (seeds.has(object)) reads.set(object, state);
      try {
        await stub[OBJECT_EVICT]();
      } catch {
        // ctx.abort() ends the call with its reason: the object is evicted.
      }
    }
    seeded.set(name, reads);
    reached.get(objectEntry.className)?.clear();
  },
  async settleRaw(owned, waitMs) {
    const pollsMax = Math.max(1, Math.ceil(waitMs / RAW_SETTLE_POLL_MS));
    /** @type {string[]} */
    let pending = [];
    for (let poll = 0; poll < pollsMax; poll++) {
      if (poll > 0) await new Promise((resolve) => realTimer(RAW_SETTLE_POLL_MS, () => resolve(undefined)));
      pending = [];
      for (const [name, real, entry] of [...owned].sort(([a], [b]) => compareText(a, b))) {
        if (!entry.setup) continue;
        for (const [key, object] of [...(reached.get(entry.className) ?? [])].sort(([, a], [, b]) => compareText(a, b))) {
          /** @type {{alarm: number | null, running: number}} */
          const state = await real.get(real.idFromString(key))[OBJECT_RAW_STATE]();
          if (state.alarm === null && state.running === 0) continue;
          const what = state.running > 0 ? `${state.running} call(s) of its code (its alarm()) still running` : `its real alarm (set for ${new Date(state.alarm ?? 0).toISOString()}) not fired`;
          pending.push(`DO:${name} object ${JSON.stringify(object)}: ${what} after ${waitMs} ms of real time`);
        }
      }
      if (pending.length === 0) break;
    }
    return pending;
  },
  async snapshot(owned) {
    /** @type {{target: string, table: string, rows: unknown[]}[]} */
    const snapshots = [];
    for (const [name, real, entry] of [...owned].sort(([a], [b]) => compareText(a, b))) {
      if (!entry.setup) continue;
      /** @type {Map<string, ObjectState | null>} object name -> state, null when a call reached it */
      const objects = new Map();
      for (const [object, state] of seeded.get(name) ?? []) objects.set(object, state);
      /** @type {Map<string, string>} */
      const keys = new Map();
      for (const [key, object] of reached.get(entry.className) ?? []) {
        objects.set(object, null);
        keys.set(object, key);
      }
      for (const object of [...objects.keys()].sort(compareText)) {
        let state = objects.get(object) ?? null;
        if (state === null) state = await real.get(real.idFromString(/** @type {string} */ (keys.get(object))))[OBJECT_SNAPSHOT](entry.sqlite);
        const read = /** @type {ObjectState} */ (state);
        snapshots.push({ target: `DO:${name}`, table: object, rows: sortedRows(read.kv.map(({ key, value }) => ({ key, value: recorded(value) }))) });
        for (const { table, rows } of read.tables) snapshots.push({ target: `DO:${name}`, table: `${object}/${table}`, rows: sortedRows(rows.map(recorded)) });
      }
    }
    return snapshots;
  },
};
