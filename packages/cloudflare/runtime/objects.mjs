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
 * the user's class (fetch and alarm included) is forwarded by name.
 *
 * Hosting. A forwarded call runs the user's code for the invocation whose stub call entered
 * the object: the invocation in flight (a sequential run has one), which holds the object as
 * a host while the call runs (`Invocation.hosts`). The object's own binding calls (D1, ...)
 * are effects of that invocation, numbered after the stub call's own point, and take faults
 * by their position in it; a crash decided at one kills the invocation and resets the object
 * with ctx.abort(), called there, inside the object, where abort() works. Work the object's
 * code runs when no call of it is in progress (after its answer) is the next model: an
 * effect it reaches then makes the run UNSUPPORTED (`object_after_work`) rather than being
 * counted to whichever invocation runs. A call's code that awaits a virtual timer is woken
 * from inside the object (`wakeTimers`), since the caller's wait does not fire timers while
 * its call is in flight.
 *
 * Alarms. The user's object gets the real `ctx`, whose storage's setAlarm, getAlarm and
 * deleteAlarm are taken over during a run (own properties of that storage object) (inside `transaction()` too, where a change applies
 * when the transaction commits and not at all when it rolls back), so no alarm is scheduled
 * on the real clock; the run keeps one alarm per object (bindings/durable_object.mjs) and
 * fires it in virtual time through the wrapper's own alarm method. setAlarm inside
 * `transactionSync()` makes the run UNSUPPORTED (`alarm_in_transaction_sync`). The
 * constructor runs with the takeover in place, so an alarm it reads or sets is the run's.
 * Outside a run (the differential runner's raw side) the methods are the real ones and
 * workerd fires the alarm on the real clock, calling the forwarded alarm(); the wrapper counts
 * the forwarded calls in progress there, so the raw side's settle (OBJECT_RAW_STATE) knows
 * when an alarm has run to its end.
 */

// @ts-ignore: workerd provides the module; the runtime keeps no type declarations of it.
import { DurableObject } from "cloudflare:workers";

import { active } from "./active.mjs";
import { OBJECT_ALARM, OBJECT_EVICT, OBJECT_RAW_STATE, OBJECT_RESET, OBJECT_SNAPSHOT, changeAlarm, noteReached, objectAlarm } from "./bindings/durable_object.mjs";
import { proxyOf } from "./bindings/index.mjs";
import { Invocation } from "./effects.mjs";
import { realTimer } from "./patch.mjs";
import { IDLE_TURNS } from "./settle.mjs";

/** The control binding (run.mjs's CONFIG_BINDING): never shown to the Worker's objects either. */
const CONFIG_BINDING = "__EUTAXY_CONFIG";

/** Tables SQLite and the runtime keep for themselves (the key-value API's `_cf_KV` among them). */
const INTERNAL_TABLES = "name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'";

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
 * Run `call` as the user's code for the invocation in flight, holding the object as its host
 * while it runs; outside a run (the differential runner's raw side) it just runs.
 * @param {any} ctx the object's DurableObjectState @param {() => unknown} call
 */
function hosted(ctx, call) {
  const inv = active.run?.current ?? null;
  if (!inv) return call();
  const abort = () => {
    try {
      ctx.abort(new Error("eutaxy: the invocation crashed inside this Durable Object; it is reset"));
    } catch {
      // abort() ends the object's work; what it throws here has nowhere to go.
    }
  };
  inv.hosts.push(abort);
  const done = () => {
    const at = inv.hosts.lastIndexOf(abort);
    if (at >= 0) inv.hosts.splice(at, 1);
  };
  /** @type {unknown} */
  let result;
  try {
    result = call();
  } catch (error) {
    done();
    throw error;
  }
  if (result instanceof Promise) {
    let settled = false;
    const ended = result.finally(() => {
      settled = true;
      done();
    });
    wakeTimers(/** @type {import("./run.mjs").Run} */ (active.run), inv, () => settled);
    return ended;
  }
  done();
  return result;
}

/**
 * While a call's code awaits in the object, fire the invocation's virtual timers when nothing
 * else of it moves: the caller waits on the call (an effect in flight), so its own wait never
 * fires them, and a promise the object's code made must be settled inside the object, which
 * this poller is (armed here, its real zero timers run in the object's context). The
 * invocation counts as idle when, over IDLE_TURNS real turns, nothing of it changed and no
 * effect but the call itself is in flight.
 * @param {import("./run.mjs").Run} run @param {import("./effects.mjs").Invocation} inv @param {() => boolean} settled
 */
function wakeTimers(run, inv, settled) {
  let idle = 0;
  let version = inv.version;
  const poll = () => {
    if (settled() || inv.dead || run.stopped || active.run !== run) return;
    const quiet = inv.inflight === 1 && inv.version === version;
    version = inv.version;
    idle = quiet ? idle + 1 : 0;
    if (idle >= IDLE_TURNS) {
      idle = 0;
      run.globals.fireNext(inv);
      version = inv.version;
    }
    realTimer(0, poll);
  };
  realTimer(0, poll);
}

/**
 * The invocation an object's binding calls belong to: the one whose call the object is
 * hosting. Anything else (the object's work after its answer) is refused and makes the run
 * UNSUPPORTED. A proxy, since the user's object keeps its env for its whole life, across the
 * calls of several invocations of one run.
 * @param {import("./run.mjs").Run} run @param {string} className
 */
function hostedInvocation(run, className) {
  const refused = new Invocation(`DO:${className}/after`);
  refused.dead = true;
  const current = () => {
    const inv = run.current;
    if (inv && inv.hosts.length > 0) return inv;
    run.markUnsupported("object_after_work", `an object of Durable Object class ${className} made a binding call after its answer (work it left running); work after the answer is not modelled yet`);
    return refused;
  };
  return new Proxy(Object.create(null), {
    get(_target, property) {
      if (property === "hosted") return true;
      const inv = current();
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
 * binding is hidden.
 * @param {Record<string, any>} realEnv @param {string} className
 */
function objectEnv(realEnv, className) {
  /** @type {{run: import("./run.mjs").Run, values: Map<string, unknown>} | null} */
  let made = null;
  return new Proxy(realEnv, {
    get(target, name) {
      if (name === CONFIG_BINDING) return undefined;
      const run = active.run;
      if (!run || typeof name === "symbol") return Reflect.get(target, name);
      if (made?.run !== run) made = { run, values: new Map() };
      if (made.values.has(name)) return made.values.get(name);
      const owner = run.owners.get(name);
      const real = Reflect.get(target, name);
      const value = owner?.record.proxy && (real !== undefined || owner.record.standsIn)
        ? proxyOf(owner, run, /** @type {any} */ (hostedInvocation(run, className)), name, real)
        : real;
      made.values.set(name, value);
      return value;
    },
    has: (target, name) => name !== CONFIG_BINDING && Reflect.has(target, name),
    ownKeys: (target) => Reflect.ownKeys(target).filter((name) => name !== CONFIG_BINDING),
  });
}

/** @param {unknown} value @returns {number} an alarm time in ms, as setAlarm takes a Date or a number */
function alarmTime(value) {
  const time = value instanceof Date ? value.getTime() : Number(value);
  if (!Number.isFinite(time)) throw new TypeError(`setAlarm() needs a Date or a number of milliseconds, got ${String(value)}`);
  return time;
}

/**
 * Take the alarm methods of one object's storage over, as own properties of that storage
 * (workerd hands the object the same storage every time; its prototype stays as it is):
 * during a run they read and change the run's alarm; outside a run (the differential
 * runner's raw side) they are the real ones.
 * @param {any} storage the real DurableObjectStorage
 * @param {() => {run: import("./run.mjs").Run, alarm: import("./bindings/durable_object.mjs").Alarm} | null} current
 * @param {() => boolean} hasHandler
 */
function takeOverAlarms(storage, current, hasHandler) {
  /** @type {Record<string, Function>} */
  const real = {};
  for (const name of ["setAlarm", "getAlarm", "deleteAlarm", "transaction", "transactionSync"]) real[name] = storage[name].bind(storage);
  let inSync = 0;
  /** @param {{run: import("./run.mjs").Run, alarm: import("./bindings/durable_object.mjs").Alarm}} here @param {unknown} time */
  const setAlarm = (here, time) => {
    if (!hasHandler()) throw new TypeError("Your Durable Object class must have an alarm() handler in order to call setAlarm()");
    if (inSync > 0) {
      here.run.markUnsupported("alarm_in_transaction_sync", "setAlarm() was called inside transactionSync(); an alarm set there is not taken over");
      throw new Error("eutaxy: unsupported: setAlarm() inside transactionSync()");
    }
    changeAlarm(here.run, here.alarm, alarmTime(time));
  };
  /** @param {any} txn the real transaction @param {{changes: (number | null)[], rolledBack: boolean}} attempt */
  const transactionView = (txn, attempt) => new Proxy(txn, {
    get(target, property) {
      if (property === "setAlarm") return async (/** @type {unknown} */ time) => { attempt.changes.push(alarmTime(time)); };
      if (property === "deleteAlarm") return async () => { attempt.changes.push(null); };
      if (property === "getAlarm") return async () => (attempt.changes.length ? attempt.changes.at(-1) : current()?.alarm.time ?? null);
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
      return here ? Promise.resolve(here.alarm.time) : real.getAlarm(options);
    },
    /** @param {unknown} [options] */
    deleteAlarm(options) {
      const here = current();
      if (!here) return real.deleteAlarm(options);
      changeAlarm(here.run, here.alarm, null);
      return Promise.resolve();
    },
    /** @param {(txn: any) => unknown} closure */
    async transaction(closure) {
      const here = current();
      if (!here) return real.transaction(closure);
      /** @type {{changes: (number | null)[], rolledBack: boolean}} */
      let attempt = { changes: [], rolledBack: false };
      const result = await real.transaction(async (/** @type {any} */ txn) => {
        attempt = { changes: [], rolledBack: false };
        return closure(transactionView(txn, attempt));
      });
      // The attempt that committed applies its alarm changes, in order; a rollback none.
      if (!attempt.rolledBack) for (const time of attempt.changes) changeAlarm(here.run, here.alarm, time);
      return result;
    },
    /** @param {() => unknown} closure */
    transactionSync(closure) {
      inSync++;
      try {
        return real.transactionSync(closure);
      } finally {
        inSync--;
      }
    },
  };
  for (const [name, value] of Object.entries(taken)) Object.defineProperty(storage, name, { value, configurable: true, writable: true });
}

/**
 * A forwarded call's result; outside a run (the raw side), a promise is counted in the
 * wrapper's `rawRunning` until it settles.
 * @param {{rawRunning: number}} wrapper @param {unknown} result
 */
function rawTracked(wrapper, result) {
  if (active.run || !(result instanceof Promise)) return result;
  wrapper.rawRunning++;
  return result.finally(() => { wrapper.rawRunning--; });
}

/**
 * The class the bundle exports for one of the Worker's Durable Object classes.
 * @param {any} User the Worker's class @param {string} className as the config names it
 */
export function wrapDurableObject(User, className) {
  if (typeof User !== "function") {
    throw new Error(`eutaxy: the Worker's config binds Durable Object class ${className}, which its entry module does not export`);
  }
  class Wrapped extends DurableObject {
    /** @param {any} ctx @param {any} env */
    constructor(ctx, env) {
      super(ctx, env);
      /** The object's DurableObjectState, as workerd gave it. */
      this.state = ctx;
      /** Forwarded calls outside a run (the raw side) still in progress: an alarm workerd fired, say. */
      this.rawRunning = 0;
      /** @type {any} the user's object, built at the first call that reaches it */
      this.instance = null;
      this.objectEnv = objectEnv(env, className);
      const current = () => {
        const run = active.run;
        return run ? { run, alarm: objectAlarm(run, className, ctx.id) } : null;
      };
      takeOverAlarms(ctx.storage, current, () => typeof User.prototype.alarm === "function");
    }

    user() {
      noteReached(className, this.state.id);
      if (this.instance === null) this.instance = Reflect.construct(User, [this.state, this.objectEnv]);
      return this.instance;
    }

    /** The alarm's delivery (bindings/durable_object.mjs): the user's alarm() for the invocation in flight. @param {{retryCount: number, isRetry: boolean}} info */
    [OBJECT_ALARM](info) {
      return hosted(this.state, () => this.user().alarm(info));
    }

    /**
     * Clear the object's storage (key-value, SQL, its alarm), seed it and read it back; a SQL
     * seed that does not apply is answered as `{seedError}` (the scenario's to fix; an error
     * would lose its meaning crossing the RPC).
     * @param {{kv: Record<string, unknown>, sql: {schema: string, rows: Record<string, object[]>} | null, sqlite: boolean}} seed
     */
    async [OBJECT_RESET](seed) {
      this.instance = null;
      const storage = this.state.storage;
      await storage.deleteAlarm();
      await storage.deleteAll();
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
      const storage = this.state.storage;
      const kv = [...(await storage.list())].map(([key, value]) => ({ key, value }));
      /** @type {{table: string, rows: unknown[]}[]} */
      const tables = [];
      if (sqlite) {
        const listed = storage.sql.exec(`SELECT name FROM sqlite_master WHERE type = 'table' AND ${INTERNAL_TABLES} ORDER BY name`).toArray();
        for (const { name } of listed) tables.push({ table: String(name), rows: storage.sql.exec(`SELECT * FROM ${quote(String(name))}`).toArray() });
      }
      return { kv, tables };
    }

    /** The raw side's settle: the object's real alarm (ms or null) and its forwarded calls in progress. */
    async [OBJECT_RAW_STATE]() {
      return { alarm: await this.state.storage.getAlarm(), running: this.rawRunning };
    }

    /** Evict the object: the next call constructs the user's class from storage alone. */
    [OBJECT_EVICT]() {
      this.instance = null;
      this.state.abort(new Error("eutaxy: evicted by the reset"));
    }
  }
  for (const [name, descriptor] of members(User)) {
    if (descriptor.get || descriptor.set) {
      Object.defineProperty(Wrapped.prototype, name, {
        configurable: true,
        get() {
          return hosted(this.state, () => this.user()[name]);
        },
      });
    } else if (typeof descriptor.value === "function") {
      Object.defineProperty(Wrapped.prototype, name, {
        configurable: true, writable: true,
        /** @param {unknown[]} args */
        value(...args) {
          return rawTracked(this, hosted(this.state, () => this.user()[name](...args)));
        },
      });
    }
  }
  Object.defineProperty(Wrapped, "name", { value: User.name || className });
  return Wrapped;
}
