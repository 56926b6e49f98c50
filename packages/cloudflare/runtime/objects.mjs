// @ts-check
/**
 * The object side of Durable Objects: the class the bundle exports in place of each of the
 * Worker's Durable Object classes (host/bundler.mjs), so workerd runs the user's class inside
 * a wrapper of Eutaxy's.
 *
 * The wrapper is a DurableObject whose instance builds the user's object lazily, at the first
 * call that reaches it, with the same `ctx` and an env of Eutaxy's: so the reset and the
 * snapshot (the wrapper's own methods, bindings/durable_object.mjs names them) clear, seed and
 * read the object's storage without running any of the user's code outside a run, and an
 * object a crash reset is read without being constructed again. Every method and accessor of
 * the user's class (fetch and alarm included) is forwarded by name. The wrapper adds no name
 * of its own to the object's surface beyond those `__eutaxy*` methods: its state (the ctx, the
 * env it gives, the user's object, the raw side's count) lives in a WeakMap beside it, so a
 * class with a `state`, `instance`, `objectEnv` or `user` of its own (the Agents SDK's Agent
 * has a `state` accessor) runs as written.
 *
 * Hosting. A forwarded call runs the user's code for the invocation whose stub call entered
 * the object (the binding notes it for the call's length, objectCaller, since workerd does not
 * carry a concurrent run's async context into the object), in that invocation's async context
 * (`scheduler.hostCall`), holding the object as a host while the call runs (`Invocation.hosts`).
 * The object's own binding calls (D1, ...) are effects of that invocation, numbered after the
 * stub call's own point, each a turn of its own in a concurrent run (the input gate is open
 * while the object awaits one, so another call may enter; not inside blockConcurrencyWhile,
 * whose gate the wrapper notes held, takeOverWork), and take faults
 * by their position in it; a crash decided at one kills the invocation and resets the object
 * with ctx.abort(), called there, inside the object, where abort() works. Work the object's
 * code runs when no call of it is in progress (after its answer) is the object's own
 * (after_work.mjs): its effects count to the invocation `DO:<binding>/<object>/after`, and
 * its timers, ctx.waitUntil promises and storage operations are what that work waits for.
 * A call's code that awaits a timer of the object's own is woken from inside the object by
 * the work's poller, since the caller's wait does not fire timers while its call is in flight.
 *
 * Alarms. The user's object gets the real `ctx`, whose storage's setAlarm, getAlarm,
 * deleteAlarm, deleteAll, transaction and transactionSync are taken over during a run (own
 * properties of that storage object), so no alarm is scheduled on the real clock; the run
 * keeps one alarm per object (bindings/durable_object.mjs) and fires it in virtual time
 * through the wrapper's own alarm method. They change the alarm as workerd does: a change made
 * while a transaction is open (`transaction()` or `transactionSync()`, through the
 * transaction's methods or the storage's) applies when it commits and not at all when its
 * closure throws or calls rollback(), and getAlarm() inside it sees it; deleteAll() deletes
 * the alarm when workerd's own compatibility flag says so (`delete_all_deletes_alarm`, on from
 * 2026-02-24, read from `Cloudflare.compatibilityFlags`). The constructor runs with the
 * takeover in place, so an alarm it reads or sets is the run's. Outside a run (the
 * differential runner's raw side) the methods are the real ones and workerd fires the alarm on
 * the real clock, calling the forwarded alarm(); the wrapper counts the forwarded calls in
 * progress there, so the raw side's settle (OBJECT_RAW_STATE) knows when an alarm has run to
 * its end.
 */

// @ts-ignore: workerd provides the module; the runtime keeps no type declarations of it.
import { DurableObject } from "cloudflare:workers";

import { active } from "./active.mjs";
import { assert } from "./assert.mjs";
import { OBJECT_ALARM, OBJECT_EVICT, OBJECT_RAW_STATE, OBJECT_RESET, OBJECT_RESET_REASON, OBJECT_SNAPSHOT, OBJECT_WEBSOCKET, changeAlarm, noteReached, objectAlarm, objectCaller } from "./bindings/durable_object.mjs";
import { proxyOf } from "./bindings/index.mjs";
import { effectInvocation, workOf } from "./after_work.mjs";
import { fetchNotingSockets, isGone, objectWebSocket, socketsBroken, takeOverSockets } from "./websocket_object.mjs";

/** The control binding (run.mjs's CONFIG_BINDING): never shown to the Worker's objects either. */
const CONFIG_BINDING = "__EUTAXY_CONFIG";

/** Tables SQLite and the runtime keep for themselves (the key-value API's `_cf_KV` among them). */
const INTERNAL_TABLES = "name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'";

/** A column default read from SQLite's own clock (`unixepoch()`, `CURRENT_TIMESTAMP`, `datetime('now')`, ...). */
const SQLITE_CLOCK_DEFAULT = /\bunixepoch\s*\(|\bcurrent_(?:timestamp|date|time)\b|'now'/i;

/** What the snapshot shows for a value of a column SQLite's real clock fills (SQLITE_CLOCK_DEFAULT). */
export const SQLITE_CLOCK_STAND_IN = "<sqlite clock>";

/**
 * A table's rows with each value of a column whose default is SQLite's own clock replaced by
 * SQLITE_CLOCK_STAND_IN: SQLite reads the real clock, which the run does not control, so the
 * value would differ between two runs of one schedule (the Agents SDK's tables have such
 * columns, `created_at INTEGER DEFAULT (unixepoch())`).
 * @param {any} storage @param {string} table @param {Record<string, unknown>[]} rows
 */
function withoutSqliteClock(storage, table, rows) {
  const columns = storage.sql.exec(`PRAGMA table_info(${quote(table)})`).toArray()
    .filter((/** @type {any} */ column) => typeof column.dflt_value === "string" && SQLITE_CLOCK_DEFAULT.test(column.dflt_value))
    .map((/** @type {any} */ column) => String(column.name));
  if (columns.length === 0) return rows;
  return rows.map((row) => ({ ...row, ...Object.fromEntries(columns.map((column) => [column, row[column] === null ? null : SQLITE_CLOCK_STAND_IN])) }));
}

/** The handlers workerd calls for a hibernatable WebSocket's events. */
const HIBERNATION_EVENTS = new Set(["webSocketMessage", "webSocketClose", "webSocketError"]);

/** The key-value entries one put() takes at most (the runtime's limit). */
const PUT_BATCH = 128;

/** @param {string} name */
function quote(name) {
  return '"' + name.replaceAll('"', '""') + '"';
}

/**
 * Every method and accessor name of a class, its own and inherited, up to DurableObject.
 * @param {Function} User @returns {Map<string, PropertyDescriptor>}
 */
function members(User) {
  /** @type {Map<string, PropertyDescriptor>} */
  const found = new Map();
  let proto = User.prototype;
  for (let depth = 0; depth < 32 && proto && proto !== DurableObject.prototype && proto !== Object.prototype; depth++) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const descriptor = Object.getOwnPropertyDescriptor(proto, name);
      if (name !== "constructor" && descriptor && !found.has(name)) found.set(name, descriptor);
    }
    proto = Object.getPrototypeOf(proto);
  }
  return found;
}

/**
 * Reset the object where its code runs: ctx.abort() works only from inside the object.
 * @param {any} ctx the object's DurableObjectState
 */
function abortObject(ctx) {
  try {
    // A text reason: workerd hands the calls it breaks an Error whose message is the reason
    // as text, so an Error here would reach the caller as "Error: Error: ...".
    ctx.abort(OBJECT_RESET_REASON);
  } catch {
    // abort() ends the object's work; what it throws here has nowhere to go.
  }
}

/**
 * The object instance's work after its answers in the run (after_work.mjs).
 * @param {import("./run.mjs").Run} run @param {any} ctx @param {string} className
 */
function objectWork(run, ctx, className) {
  return workOf(run, ctx, className, () => {
    socketsBroken(ctx, className);
    abortObject(ctx);
  });
}

/**
 * Run `call` as the user's code for the invocation whose call the object is running (the
 * binding records it, objectCaller: workerd does not carry a concurrent run's async context
 * into the object), in that invocation's context and holding the object as its host while it
 * runs; outside a run (the differential runner's raw side) it just runs.
 * @param {any} ctx the object's DurableObjectState @param {string} className @param {() => unknown} call
 */
function hosted(ctx, className, call) {
  const run = active.run;
  const inv = run ? objectCaller(run, className, ctx.id) ?? run.current : null;
  if (!run || !inv) return call();
  return hostedAs(run, inv, ctx, className, call);
}

/**
 * Run `call` as the object's own code, with no caller (an event of the object's own, such as
 * the webSocketClose workerd calls for a peer gone away): its effects and timers are the
 * object's work after its answers (after_work.mjs); outside a run it just runs.
 * @param {any} ctx the object's DurableObjectState @param {string} className @param {() => unknown} call
 */
function ownCode(ctx, className, call) {
  const run = active.run;
  if (!run) return call();
  const work = objectWork(run, ctx, className);
  return run.scheduler.runFresh(work.inv, () => {
    work.changed();
    work.poll();
    return call();
  });
}

/**
 * The call as its invocation's, in its async context (`scheduler.hostCall`): the object's
 * work (after_work.mjs) notes the call, and its poller, armed here inside the object, wakes a
 * call that awaits a timer of the object's own. At the answer what the object's code goes on
 * doing is handed over to its work (a concurrent run's context and parked effects).
 * @param {import("./run.mjs").Run} run @param {import("./effects.mjs").Invocation} inv
 * @param {any} ctx @param {string} className @param {() => unknown} call
 */
function hostedAs(run, inv, ctx, className, call) {
  const work = objectWork(run, ctx, className);
  const host = { reset: () => work.reset(), work };
  inv.hosts.push(host);
  work.calls.push(inv);
  work.changed();
  /** @type {((to: import("./effects.mjs").Invocation, object: string, keep: boolean) => void) | null} */
  let handOver = null;
  const done = () => {
    const at = inv.hosts.lastIndexOf(host);
    if (at >= 0) inv.hosts.splice(at, 1);
    const call = work.calls.lastIndexOf(inv);
    if (call >= 0) work.calls.splice(call, 1);
    // The caller's other call of this object, if one is in progress, keeps what it opened.
    handOver?.(work.inv, work.where, work.calls.includes(inv));
    work.changed();
  };
  /** @type {unknown} */
  let result;
  try {
    const hostedCall = run.scheduler.hostCall(inv, () => {
      work.poll();
      return call();
    });
    result = hostedCall.result;
    handOver = hostedCall.handOver;
  } catch (error) {
    done();
    throw error;
  }
  if (result instanceof Promise) return result.finally(done);
  done();
  return result;
}

/**
 * The invocation an object's binding calls belong to: the one whose call the object is
 * hosting, or else the object's own work after its answers (after_work.mjs). A proxy, since
 * the user's object keeps its env for its whole life, across the calls of several
 * invocations of one run.
 * @param {import("./run.mjs").Run} run @param {any} ctx @param {string} className
 */
function hostedInvocation(run, ctx, className) {
  const current = () => effectInvocation(run, objectWork(run, ctx, className));
  return new Proxy(Object.create(null), {
    get(_target, property) {
      if (property === "hosted") return true;
      const inv = current();
      if (property === "now") return inv;
      const value = Reflect.get(inv, property);
      return typeof value === "function" ? value.bind(inv) : value;
    },
    set(_target, property, value) {
      return Reflect.set(current(), property, value);
    },
  });
}

/**
 * The env an object's code sees: during a run each binding a record owns as that record
 * presents it to the hosting invocation; outside a run the real bindings. The control
 * binding is hidden. A callee Worker's class (`names` given) sees the callee's env: each of
 * its own names is the isolate's name it maps to (`DB` -> `inventory/DB`), and nothing else.
 * @param {Record<string, any>} realEnv @param {string} className @param {any} ctx the object's DurableObjectState
 * @param {Record<string, string> | null} names the callee's own names -> the isolate's, null for the Worker's own class
 */
function objectEnv(realEnv, className, ctx, names) {
  /** @type {{run: import("./run.mjs").Run, values: Map<string, unknown>} | null} */
  let made = null;
  /** @param {string | symbol} name @returns {string | symbol | null} the isolate's name for it, null for none */
  const isolateName = (name) => (name === CONFIG_BINDING ? null : names === null || typeof name === "symbol" ? name : Object.hasOwn(names, name) ? names[name] : null);
  // A callee's view is its own object (its keys are the callee's names, none of the isolate's).
  return new Proxy(names === null ? realEnv : Object.create(null), {
    get(_target, own) {
      const name = isolateName(own);
      if (name === null) return undefined;
      const run = active.run;
      if (!run || typeof name === "symbol") return Reflect.get(realEnv, name);
      if (made?.run !== run) made = { run, values: new Map() };
      if (made.values.has(name)) return made.values.get(name);
      const owner = run.owners.get(name);
      const real = Reflect.get(realEnv, name);
      const value = owner?.record.proxy && (real !== undefined || owner.record.standsIn)
        ? proxyOf(owner, run, /** @type {any} */ (hostedInvocation(run, ctx, className)), name, real)
        : real;
      made.values.set(name, value);
      return value;
    },
    has: (target, own) => (names === null ? own !== CONFIG_BINDING && Reflect.has(target, own) : isolateName(own) !== null),
    ownKeys: (target) => (names === null ? Reflect.ownKeys(target).filter((name) => name !== CONFIG_BINDING) : Object.keys(names)),
    getOwnPropertyDescriptor: (target, own) => (names === null || typeof own === "symbol" || !Object.hasOwn(names, own)
      ? Reflect.getOwnPropertyDescriptor(target, own)
      : { value: Reflect.get(realEnv, names[own]), writable: false, enumerable: true, configurable: true }),
  });
}

/** @param {unknown} value @returns {number} an alarm time in ms, as setAlarm takes a Date or a number */
function alarmTime(value) {
  const time = value instanceof Date ? value.getTime() : Number(value);
  if (!Number.isFinite(time)) throw new TypeError(`setAlarm() needs a Date or a number of milliseconds, got ${String(value)}`);
  return time;
}

/**
 * workerd's own answer, for the Worker's compatibility date and flags, to whether deleteAll()
 * deletes the alarm too (the `delete_all_deletes_alarm` flag, on from 2026-02-24): the
 * runtime exposes its flags as `Cloudflare.compatibilityFlags`, so the model asks it rather
 * than keeping a copy of the rule. A workerd that does not name the flag (a Vitest pool's
 * older one; one without the `Cloudflare` global is older still) predates it, and its
 * deleteAll() keeps the alarm.
 * @returns {boolean}
 */
function deleteAllDeletesAlarm() {
  return /** @type {any} */ (globalThis).Cloudflare?.compatibilityFlags?.delete_all_deletes_alarm === true;
}

/**
 * @typedef {{run: import("./run.mjs").Run, alarm: import("./bindings/durable_object.mjs").Alarm}} Here
 * @typedef {{setAlarm: Function, getAlarm: Function, deleteAlarm: Function, deleteAll: Function, transaction: Function, transactionSync: Function}} RealStorage
 */

/** The real storage methods of each storage taken over, so a storage is taken over once. @type {WeakMap<object, RealStorage>} */
const takenOver = new WeakMap();

/**
 * Take one object's storage operations that touch its alarm over, as own properties of that
 * storage (workerd hands the object the same storage every time; its prototype stays as it
 * is): during a run they read and change the run's alarm; outside a run (the differential
 * runner's raw side) they are the real ones. Returns the real ones, which the reset uses.
 *
 * As workerd does: an alarm change made while a transaction is open (through the
 * transaction's own methods or the storage's, in `transaction()` or `transactionSync()`)
 * belongs to the innermost open transaction, is what getAlarm() answers inside it, and
 * applies when it commits, not at all when its closure throws or calls rollback();
 * deleteAll() deletes the alarm when the compatibility flags say so, and inside a
 * transaction is workerd's own refusal.
 * @param {any} storage the real DurableObjectStorage
 * @param {() => Here | null} current
 * @param {() => boolean} hasHandler
 * @returns {RealStorage}
 */
function takeOverStorage(storage, current, hasHandler) {
  const known = takenOver.get(storage);
  if (known) return known;
  /** @type {any} */
  const real = {};
  takenOver.set(storage, real);
  for (const name of ["setAlarm", "getAlarm", "deleteAlarm", "deleteAll", "transaction", "transactionSync"]) real[name] = storage[name].bind(storage);
  /** The open transactions' alarm changes (a time, or null for a delete), innermost last. @type {(number | null)[][]} */
  const open = [];
  /** @param {Here} here */
  const pendingTime = (here) => {
    for (let at = open.length - 1; at >= 0; at--) if (open[at].length > 0) return /** @type {number | null} */ (open[at].at(-1));
    return here.alarm.time;
  };
  /** @param {Here} here @param {number | null} time */
  const change = (here, time) => {
    if (open.length > 0) open[open.length - 1].push(time);
    else changeAlarm(here.run, here.alarm, time);
  };
  /** @param {Here} here @param {unknown} time */
  const setAlarm = (here, time) => {
    if (!hasHandler()) throw new TypeError("Your Durable Object class must have an alarm() handler in order to call setAlarm()");
    change(here, alarmTime(time));
  };
  /** A transaction's changes leave the open list; committed, they go to the enclosing one (or apply). @param {Here} here @param {(number | null)[]} frame @param {boolean} commit */
  const close = (here, frame, commit) => {
    const at = open.lastIndexOf(frame);
    if (at >= 0) open.splice(at, 1);
    if (commit) for (const time of frame) change(here, time);
  };
  /** @param {Here} here @param {any} txn the real transaction @param {{rolledBack: boolean}} attempt */
  const transactionView = (here, txn, attempt) => new Proxy(txn, {
    get(target, property) {
      if (property === "setAlarm") return async (/** @type {unknown} */ time) => setAlarm(here, time);
      if (property === "deleteAlarm") return async () => change(here, null);
      if (property === "getAlarm") return async () => pendingTime(here);
      if (property === "rollback") return () => { attempt.rolledBack = true; return target.rollback(); };
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  /** @type {Record<string, Function>} */
  const taken = {
    /** @param {unknown} time @param {unknown} [options] */
    setAlarm(time, options) {
      const here = current();
      if (!here) return real.setAlarm(time, options);
      setAlarm(here, time);
      return Promise.resolve();
    },
    /** @param {unknown} [options] */
    getAlarm(options) {
      const here = current();
      return here ? Promise.resolve(pendingTime(here)) : real.getAlarm(options);
    },
    /** @param {unknown} [options] */
    deleteAlarm(options) {
      const here = current();
      if (!here) return real.deleteAlarm(options);
      change(here, null);
      return Promise.resolve();
    },
    /** @param {unknown} [options] */
    deleteAll(options) {
      const here = current();
      // Inside a transaction workerd refuses deleteAll(), and nothing changes.
      if (here && open.length === 0 && deleteAllDeletesAlarm()) changeAlarm(here.run, here.alarm, null);
      return real.deleteAll(options);
    },
    /** @param {(txn: any) => unknown} closure @param {unknown[]} rest */
    async transaction(closure, ...rest) {
      const here = current();
      if (!here) return real.transaction(closure, ...rest);
      /** @type {(number | null)[]} */
      const frame = [];
      const attempt = { rolledBack: false };
      open.push(frame);
      /** @type {unknown} */
      let result;
      try {
        result = await real.transaction(async (/** @type {any} */ txn) => {
          // A closure run again starts its changes afresh.
          frame.length = 0;
          attempt.rolledBack = false;
          return closure(transactionView(here, txn, attempt));
        }, ...rest);
      } catch (error) {
        close(here, frame, false);
        throw error;
      }
      close(here, frame, !attempt.rolledBack);
      return result;
    },
    /** @param {() => unknown} closure */
    transactionSync(closure) {
      const here = current();
      if (!here) return real.transactionSync(closure);
      /** @type {(number | null)[]} */
      const frame = [];
      open.push(frame);
      /** @type {unknown} */
      let result;
      try {
        result = real.transactionSync(closure);
      } catch (error) {
        close(here, frame, false);
        throw error;
      }
      close(here, frame, true);
      return result;
    },
  };
  for (const [name, value] of Object.entries(taken)) Object.defineProperty(storage, name, { value, configurable: true, writable: true });
  return real;
}

/** The storage operations whose promises the object's work waits for (after_work.mjs). */
const TRACKED_STORAGE = ["get", "put", "delete", "list", "sync"];

/** Each storage whose operations are tracked, with the object instance it belongs to now. @type {WeakMap<object, {ctx: any, className: string}>} */
const workOfStorage = new WeakMap();

/**
 * What the object's work after its answers waits for, taken over as own properties of the
 * object's ctx and storage: in a run, `ctx.waitUntil`'s promises (in an object it only keeps
 * the object from being evicted, which the run's work does) and the storage operations in
 * flight; outside a run (the raw side) the real methods alone.
 * @param {any} ctx the object's DurableObjectState @param {string} className
 */
function takeOverWork(ctx, className) {
  const storage = ctx.storage;
  const tracked = workOfStorage.has(storage);
  workOfStorage.set(storage, { ctx, className });
  for (const name of tracked ? [] : TRACKED_STORAGE) {
    const real = storage[name];
    if (typeof real !== "function") continue;
    Object.defineProperty(storage, name, {
      configurable: true, writable: true,
      /** @param {unknown[]} args */
      value(...args) {
        const result = real.apply(storage, args);
        const run = active.run;
        const owner = workOfStorage.get(storage);
        return run && owner && result instanceof Promise ? objectWork(run, owner.ctx, owner.className).storageOperation(result) : result;
      },
    });
  }
  if (Object.hasOwn(ctx, "waitUntil")) return;
  const realBlock = typeof ctx.blockConcurrencyWhile === "function" ? ctx.blockConcurrencyWhile.bind(ctx) : null;
  if (realBlock) {
    Object.defineProperty(ctx, "blockConcurrencyWhile", {
      configurable: true, writable: true,
      /** @param {() => unknown} callback */
      value(callback) {
        const run = active.run;
        if (!run) return realBlock(callback);
        // The gate is workerd's own; the run notes it is held, so the object's I/O meanwhile is no turn (effects.mjs).
        const work = objectWork(run, ctx, className);
        work.blocking++;
        /** @type {Promise<unknown>} */
        let blocked;
        try {
          blocked = realBlock(callback);
        } catch (error) {
          work.blocking--;
          throw error;
        }
        return Promise.resolve(blocked).finally(() => { work.blocking--; });
      },
    });
  }
  const realWaitUntil = typeof ctx.waitUntil === "function" ? ctx.waitUntil.bind(ctx) : null;
  Object.defineProperty(ctx, "waitUntil", {
    configurable: true, writable: true,
    /** @param {unknown} promise */
    value(promise) {
      const run = active.run;
      if (run) objectWork(run, ctx, className).wait(promise);
      return realWaitUntil?.(promise);
    },
  });
}

/**
 * The wrapper's own state, kept outside the wrapper so that it adds no property, method or
 * accessor a user class could collide with (a class, an Agent among them, may well have a
 * `state`, `instance` or `user` of its own, which the wrapper forwards).
 * @typedef {{ctx: any, env: any, user: any, rawRunning: number, storage: RealStorage, User: any, className: string}} WrapperState
 */
/** @type {WeakMap<object, WrapperState>} */
const wrappers = new WeakMap();

/** @param {object} wrapper @returns {WrapperState} */
function stateOf(wrapper) {
  const state = wrappers.get(wrapper);
  assert(state !== undefined, "a Durable Object wrapper method ran on an object the wrapper did not construct");
  return state;
}

/** The user's object, built at the first call that reaches it. @param {WrapperState} state */
function userObject(state) {
  noteReached(state.className, state.ctx.id);
  if (state.user === null) state.user = Reflect.construct(state.User, [state.ctx, state.env]);
  return state.user;
}

/**
 * A forwarded call's result; outside a run (the raw side), a promise is counted in the
 * wrapper's `rawRunning` until it settles.
 * @param {WrapperState} state @param {unknown} result
 */
function rawTracked(state, result) {
  if (active.run || !(result instanceof Promise)) return result;
  state.rawRunning++;
  return result.finally(() => { state.rawRunning--; });
}

/**
 * The class the bundle exports for one of the Worker's Durable Object classes, or a callee
 * Worker's (under its alias, `inventory.Counter`, seeing the callee's env through `names`).
 * @param {any} User the Worker's class @param {string} className as the config names it (a callee's: its alias)
 * @param {Record<string, string> | null} [names] a callee's class: its own env names -> the isolate's
 */
export function wrapDurableObject(User, className, names = null) {
  if (typeof User !== "function") {
    throw new Error(`eutaxy: the Worker's config binds Durable Object class ${className}, which its entry module does not export`);
  }
  class Wrapped extends DurableObject {
    /** @param {any} ctx @param {any} env */
    constructor(ctx, env) {
      super(ctx, env);
      const current = () => {
        const run = active.run;
        return run ? { run, alarm: objectAlarm(run, className, ctx.id) } : null;
      };
      const storage = takeOverStorage(ctx.storage, current, () => typeof User.prototype.alarm === "function");
      takeOverWork(ctx, className);
      takeOverSockets(ctx, className);
      wrappers.set(this, { ctx, env: objectEnv(env, className, ctx, names), user: null, rawRunning: 0, storage, User, className });
    }

    /** The alarm's delivery (bindings/durable_object.mjs): the user's alarm() for the invocation in flight. @param {{retryCount: number, isRetry: boolean}} info */
    [OBJECT_ALARM](info) {
      const state = stateOf(this);
      return hosted(state.ctx, state.className, () => userObject(state).alarm(info));
    }

    /**
     * Clear the object's storage (key-value, SQL, its alarm), seed it and read it back; a SQL
     * seed that does not apply is answered as `{seedError}` (the scenario's to fix; an error
     * would lose its meaning crossing the RPC).
     * @param {{kv: Record<string, unknown>, sql: {schema: string, rows: Record<string, object[]>} | null, sqlite: boolean}} seed
     */
    async [OBJECT_RESET](seed) {
      const state = stateOf(this);
      state.user = null;
      const storage = state.ctx.storage;
      await state.storage.deleteAlarm();
      await state.storage.deleteAll();
      const entries = Object.entries(seed.kv);
      for (let at = 0; at < entries.length; at += PUT_BATCH) await storage.put(Object.fromEntries(entries.slice(at, at + PUT_BATCH)));
      if (seed.sql) {
        let at = "the schema";
        try {
          if (seed.sql.schema.trim()) storage.sql.exec(seed.sql.schema);
          for (const [table, rows] of Object.entries(seed.sql.rows ?? {})) {
            for (const [index, row] of rows.entries()) {
              at = `rows.${table}[${index}]`;
              const columns = Object.keys(row);
              if (columns.length === 0) storage.sql.exec(`INSERT INTO ${quote(table)} DEFAULT VALUES`);
              else storage.sql.exec(`INSERT INTO ${quote(table)} (${columns.map(quote).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`, ...Object.values(row));
            }
          }
        } catch (error) {
          return { seedError: `${at}: ${/** @type {Error} */ (error)?.message ?? String(error)}` };
        }
      }
      await storage.sync?.();
      return this[OBJECT_SNAPSHOT](seed.sqlite);
    }

    /** The object's key-value entries and, SQLite-backed, its user tables. @param {boolean} sqlite */
    async [OBJECT_SNAPSHOT](sqlite) {
      const storage = stateOf(this).ctx.storage;
      const kv = [...(await storage.list())].map(([key, value]) => ({ key, value }));
      /** @type {{table: string, rows: unknown[]}[]} */
      const tables = [];
      if (sqlite) {
        const listed = storage.sql.exec(`SELECT name FROM sqlite_master WHERE type = 'table' AND ${INTERNAL_TABLES} ORDER BY name`).toArray();
        for (const { name } of listed) {
          const rows = storage.sql.exec(`SELECT * FROM ${quote(String(name))}`).toArray();
          tables.push({ table: String(name), rows: withoutSqliteClock(storage, String(name), rows) });
        }
      }
      return { kv, tables };
    }

    /** The raw side's settle: the object's real alarm (ms or null) and its forwarded calls in progress. */
    async [OBJECT_RAW_STATE]() {
      const state = stateOf(this);
      return { alarm: await state.storage.getAlarm(), running: state.rawRunning };
    }

    /** The websocket drive's calls into the object (websocket_object.mjs). @param {string} op @param {string} connection @param {unknown} [data] */
    [OBJECT_WEBSOCKET](op, connection, data) {
      const state = stateOf(this);
      const user = () => (op === "drop" ? (state.user = null) : userObject(state));
      return objectWebSocket(state.ctx, state.className, op, connection, data, user,
        (call) => hosted(state.ctx, state.className, call), (call) => ownCode(state.ctx, state.className, call));
    }

    /** Evict the object: the next call constructs the user's class from storage alone. */
    [OBJECT_EVICT]() {
      const state = stateOf(this);
      state.user = null;
      state.ctx.abort("eutaxy: evicted by the reset");
    }
  }
  for (const [name, descriptor] of members(User)) {
    if (descriptor.get || descriptor.set) {
      Object.defineProperty(Wrapped.prototype, name, {
        configurable: true,
        get() {
          const state = stateOf(this);
          return hosted(state.ctx, state.className, () => userObject(state)[name]);
        },
      });
    } else if (typeof descriptor.value === "function") {
      Object.defineProperty(Wrapped.prototype, name, {
        configurable: true, writable: true,
        /** @param {unknown[]} args */
        value(...args) {
          const state = stateOf(this);
          // A hibernation event for a socket the object already heard close as lost (websocket_object.mjs).
          if (HIBERNATION_EVENTS.has(name) && isGone(state.ctx, state.className, args[0])) return undefined;
          const call = () => userObject(state)[name](...args);
          return rawTracked(state, hosted(state.ctx, state.className, name === "fetch" ? () => fetchNotingSockets(state.ctx, call) : call));
        },
      });
    }
  }
  Object.defineProperty(Wrapped, "name", { value: User.name || className });
  return Wrapped;
}
