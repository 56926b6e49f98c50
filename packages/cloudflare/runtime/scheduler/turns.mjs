// @ts-check
/**
 * The turn scheduler: concurrent invocations (`bounds.maxConcurrentInvocations` above 1),
 * one of the two implementations of the scheduler interface (scheduler.mjs).
 *
 * Up to `limit` deliveries are in flight at once, as concurrent requests are in one
 * isolate. Each asynchronous effect is a turn: the effect point parks its invocation
 * (`park`) before it records or performs anything. Once every invocation in flight has
 * parked, finished or gone idle (`quiesce`: no effect I/O or Web Crypto work running, and
 * one real turn of the event loop changed nothing), the scheduler makes one turn decision
 * among, in this order:
 *
 * - `{kind: "effect", invocation, target}` for each parked effect, in the order they parked:
 *   the effect is performed (its fault decision, its I/O) and its invocation runs on to its
 *   next park, its end, or an idle wait; an effect a Durable Object's code opened during a
 *   call of it adds `object: "DO:<binding>/<object>"` (taking it runs that object's code, which
 *   the enumerator's reduction must know: engine exhaustive.py);
 * - `{kind: "start", event}` while a slot is free, one per source with an event ready (the
 *   binding records' own first, such as a queue the Worker consumes and produces onto, then
 *   the drive's): that source's next delivery starts and runs to its first park;
 * - `{kind: "timer"}` when a virtual timer is due (at or before the virtual now): the
 *   earliest fires (timers keep their due order, so one option is enough).
 *
 * A Durable Object's work after its answer (after_work.mjs) is a participant like any other
 * invocation: its source is `auto`, so the scheduler starts its delivery with no decision the
 * moment anything of it is pending (and ends it once nothing is, `startAuto`, before each
 * decision); it takes no slot of `limit`. Its effects are offered only while its delivery is in
 * flight, each naming the object (`object`), and its timers are `timer` turns, fired inside the
 * object by the work's poller when asked (`requestFire`); its I/O and a timer it was asked to
 * fire count as busy (`track`). The turn that releases an effect parked inside an object is not
 * over until the effect's point has run on (`unparked`): workerd resumes it in the object's own
 * context, a real turn or more later.
 *
 * The pick is the plan follower's (`PlanFollower.turnAt`). With nothing on offer, a timer
 * not yet due fires and virtual time passes to it (no decision: nothing else can move);
 * with no timer either, an invocation still in flight waits on something Eutaxy cannot
 * see and the run is UNSUPPORTED (`unseen_wait`). The scheduler never decides on real time.
 *
 * Each delivery runs in its own AsyncLocalStorage context holding its invocation, so
 * `running()` names the invocation whose code executes even when a promise shared between
 * invocations resumes one during another's turn (timers fire in their owner's context).
 *
 * `more`: an effect turn that did more than its effect (a synchronous effect, another
 * invocation's code reaching an effect, reading the clock or randomness, setting a timer)
 * marks its decision `more: true`: the enumerator's partial-order reduction then lets that
 * turn commute with no other (engine exhaustive.py). A start or a timer turn depends on
 * everything and is never marked. Core decisions (pure calls) and the platform's own
 * end-of-delivery points (implicit acks, dead letters, the http response point: one per
 * event, so two deliveries' commute) are not "more"; only
 * a `decision` effect point (one the Worker's code makes, such as `message.ack()`) notes it.
 *
 * A drive hands the scheduler a source: `{next(): string | null, start(): Promise<void>,
 * wake?(): number | null}`: `next` names the event the next start would deliver (null when
 * none is ready), `start` performs one whole delivery (it calls `run.startInvocation` and
 * waits with `settle`, as the sequential loop does), and the optional `wake` gives the
 * virtual time at which a delayed event (a caller's resend) becomes ready, so that when
 * nothing else can move time passes to it or to the earliest timer, whichever is first.
 *
 * Alarms are the engine's own virtual timers (`alarm(due, fire)`; the http caller's deadline
 * is one): they belong to no invocation, leave no trace, are never a turn option and do not
 * count as a read of the clock. Everything that happens at an alarm's instant comes before
 * it, so an alarm fires once the clock has passed its due time (checked before every turn
 * decision, since effects move the clock), or, at its due time, once nothing else can move
 * and no timer or delayed event is due at or before it (time passing to it if need be).
 */

import { AsyncLocalStorage } from "node:async_hooks";

import { assert } from "../assert.mjs";
import { realTurn } from "../patch.mjs";
import { IDLE_TURNS, waitForChange } from "../settle.mjs";
import { TimerQueue } from "../timers.mjs";
import { earliestWake, eventSources } from "./sources.mjs";

/** A loop bound: no run makes more turn decisions than this. */
export const MAX_TURNS = 100_000;

/** A loop bound on event-loop turns while waiting for the invocations to settle down. */
export const MAX_QUIESCE_STEPS = 100_000;


/**
 * @typedef {import("../effects.mjs").Invocation} Invocation
 * @typedef {{inv: Invocation | null, auto?: boolean}} Holder
 * @typedef {{inv: Invocation, target: string, op: string, object: string | null, seq: number, release: (owner: Invocation) => void}} Parked
 * @typedef {import("../after_work.mjs").ObjectWork} ObjectWork
 * @typedef {import("./scheduler.mjs").Source} Source
 * @typedef {{due: number, seq: number, fire: () => void}} Alarm
 */

export class TurnScheduler {
  /** @param {import("../run.mjs").Run} run @param {number} limit */
  constructor(run, limit) {
    this.run = run;
    this.limit = limit;
    /** @type {AsyncLocalStorage<Holder>} */
    this.als = new AsyncLocalStorage();
    /** @type {Parked[]} effects waiting for their turn, in park order */
    this.parked = [];
    this.parkSeq = 0;
    /** @type {Set<Holder>} deliveries in flight (started, not yet finished) */
    this.deliveries = new Set();
    /** Bumped on every change the scheduler waits for (a park, an effect's I/O, a delivery's end). */
    this.version = 0;
    /** @type {(() => void)[]} */
    this.waiters = [];
    /** @type {{kind: string, invocation?: Invocation} | null} the turn running now */
    this.turn = null;
    /** @type {{more: boolean} | null} the decision of the turn running now */
    this.decision = null;
    /** @type {unknown} an internal failure of a delivery, rethrown by drive() */
    this.failure = null;
    /** @type {TimerQueue<Alarm>} the engine's own virtual timers, not yet fired or cancelled */
    this.alarms = new TimerQueue();
    /** Alarms set in the run so far: no more than these can ever fire (ringAlarms' bound). */
    this.alarmsSet = 0;
    /** @type {Set<ObjectWork>} every Durable Object instance's work after its answers in the run (after_work.mjs) */
    this.works = new Set();
    /**
     * Effects a turn released whose point has not run on yet: one parked inside a Durable
     * Object resumes in the object's own context, a real turn or more later (`unparked`).
     */
    this.releasing = 0;
  }

  /** Interleaves invocations: an object's work after its answer is a participant (after_work.mjs). */
  get concurrent() {
    return true;
  }

  /** An object instance's work after its answers: its I/O and the timer it was asked to fire count as busy. @param {ObjectWork} work */
  track(work) {
    this.works.add(work);
  }

  /**
   * Run `fn` in a context of its own naming `inv` (the object's own code: the poller's timer
   * callbacks, an event of the object's with no caller).
   * @template T @param {Invocation} inv @param {() => T} fn @returns {T}
   */
  runFresh(inv, fn) {
    return this.als.run({ inv }, fn);
  }

  /**
   * Run a Durable Object call's code for `inv` in a context of the call's own, so that once
   * the call has answered what the object's code goes on doing can be handed to the object's
   * own work (`handOver`): its async context then names the work's invocation, and the
   * effects the call opened inside the object (`object`) and left waiting for their turn go
   * to the work too.
   * @template T @param {Invocation} inv @param {() => T} fn
   * @returns {{result: T, handOver: (to: Invocation, object: string, keep: boolean) => void}}
   */
  hostCall(inv, fn) {
    /** @type {Holder} */
    const holder = { inv };
    const result = this.als.run(holder, fn);
    return {
      result,
      handOver: (to, object, keep) => {
        holder.inv = to;
        if (!keep) this.adopt(inv, to, object);
      },
    };
  }

  /**
   * A callee's invocation hosted by a call of `caller`'s (bindings/callee.mjs): a delivery of
   * its own while the call is in flight, its code run in its own context (`enter`), so its
   * effects are turns like any other invocation's and its timers are its own; it takes no slot
   * of `limit` (the call's delivery holds one). The caller waits at the call meanwhile: its
   * hosting point counts as parked, no I/O of its own the scheduler would wait for. `leave`
   * ends the delivery.
   * @param {Invocation} caller @param {Invocation} child
   * @returns {{enter: <T>(fn: () => T) => T, leave: () => void}}
   */
  host(caller, child) {
    /** @type {Holder} */
    const holder = { inv: child, auto: true };
    this.deliveries.add(holder);
    caller.parked++;
    child.onChange = () => this.changed();
    this.changed();
    return {
      enter: (fn) => this.als.run(holder, fn),
      leave: () => {
        this.deliveries.delete(holder);
        this.parked = this.parked.filter((p) => p.inv !== child);
        caller.parked--;
        this.changed();
      },
    };
  }

  /**
   * Effects `from` opened inside the object `object` and left waiting for their turn become
   * `to`'s (the object's work, once the call that opened them has answered).
   * @param {Invocation} from @param {Invocation} to @param {string} object
   */
  adopt(from, to, object) {
    let moved = false;
    for (const parked of this.parked) {
      if (parked.inv !== from || parked.object !== object) continue;
      parked.inv = to;
      from.parked--;
      to.parked++;
      moved = true;
    }
    if (moved) this.changed();
  }

  /**
   * Set an engine alarm: `fire` runs once, when the clock has passed `due` or when nothing
   * else can move (see the header). It runs outside every invocation's context and must not
   * run user code. Returns the cancel function (harmless once fired).
   * @param {number} due @param {() => void} fire @returns {() => void}
   */
  alarm(due, fire) {
    this.alarmsSet++;
    const alarm = this.alarms.add({ due, fire });
    return () => { this.alarms.remove(alarm); };
  }

  /** The earliest alarm (due order, then the order set). @returns {Alarm | null} */
  earliestAlarm() {
    return this.alarms.earliest();
  }

  /**
   * Fire, in due order, every alarm due before the virtual now (`through: "passed"`) or at
   * or before it (`"now"`); the clock may move as they fire (a recorded effect), so each is
   * checked against the clock as it is then. Returns whether any fired.
   * @param {"passed" | "now"} through
   */
  ringAlarms(through) {
    let fired = false;
    // Bounded: every pass but the last removes an alarm, and no more can be removed than were set.
    for (let pass = 0; pass <= this.alarmsSet; pass++) {
      if (this.run.stopped) return fired;
      const alarm = this.earliestAlarm();
      if (!alarm || alarm.due > this.run.clock.now || (through === "passed" && alarm.due === this.run.clock.now)) return fired;
      this.alarms.remove(alarm);
      fired = true;
      alarm.fire();
    }
    assert(false, () => `ringAlarms fired more alarms than the ${this.alarmsSet} set in the run`);
  }

  /** The invocation whose code is running, from the async context. @returns {Invocation | null} */
  running() {
    return this.als.getStore()?.inv ?? null;
  }

  /** A delivery's invocation has started: its context now names it. @param {Invocation} inv */
  bind(inv) {
    const holder = this.als.getStore();
    assert(holder !== undefined, () => `invocation ${inv.id} started outside a delivery the turn scheduler started`);
    holder.inv = inv;
    inv.onChange = () => this.changed();
  }

  /** The drive is done with `inv` (its delivery's end is what the scheduler waits for). @param {Invocation} _inv */
  release(_inv) {}

  /**
   * Note reads of the clock and the random streams and new timers for the `more` flag.
   * @param {import("../globals.mjs").VirtualGlobals} globals
   */
  watch(globals) {
    watchReads(globals, (what) => this.noteMore(what));
  }

  changed() {
    this.version++;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** @returns {Promise<void>} */
  nextChange() {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * The running effect turn did more than its effect.
   * @param {string} _what what it did ("clock", "randomness", "timer", "sync_effect", "other_invocation")
   */
  noteMore(_what) {
    if (this.decision && this.turn?.kind === "effect") this.decision.more = true;
  }

  /**
   * An asynchronous effect point parks its invocation until a turn picks it; `object` names
   * the Durable Object (`DO:<binding>/<object>`) whose call opened it, if one did: taking the
   * turn goes on running that object's code.
   * @param {Invocation} inv @param {string} target @param {string} op @param {string | null} [object]
   * @returns {Promise<Invocation>} the invocation whose effect it is when its turn comes (`adopt`)
   */
  park(inv, target, op, object = null) {
    if (this.turn?.kind === "effect" && this.turn.invocation !== inv) this.noteMore("other_invocation");
    return new Promise((resolve) => {
      this.parked.push({ inv, target, op, object, seq: this.parkSeq++, release: resolve });
      this.changed();
    });
  }

  /** A released effect's point runs on (effects.mjs, right after its park). */
  unparked() {
    this.releasing--;
    assert(this.releasing >= 0, () => `${this.releasing} effects counted as released`);
    this.changed();
  }

  /**
   * Wait for a delivery's handler: the turns decide what runs; this only waits for the outcome.
   * @param {Invocation} inv @param {Promise<unknown>} promise
   * @returns {Promise<import("../settle.mjs").Outcome>}
   */
  settle(inv, promise) {
    const run = this.run;
    return new Promise((resolve) => {
      let done = false;
      const finish = (/** @type {import("../settle.mjs").Outcome} */ outcome) => {
        if (done) return;
        done = true;
        resolve(outcome);
      };
      promise.then(
        (value) => finish({ kind: "returned", value }),
        (error) => finish({ kind: "threw", error }),
      );
      const watch = () => {
        if (done) return;
        if (inv.crashed) finish({ kind: "crashed" });
        else if (run.stopped) finish({ kind: "unsupported" });
        else inv.changed().then(watch);
      };
      watch();
    });
  }

  /**
   * As `settle`: the turn decisions already fix what moves between a handler's return and
   * the drive's next point.
   * @param {Invocation} inv @param {Promise<unknown>} promise
   */
  settleAtReturn(inv, promise) {
    return this.settle(inv, promise);
  }

  /**
   * True while an effect's I/O or Web Crypto work of an invocation in flight is running: a
   * Durable Object call whose code parked at an effect of its own is not running.
   */
  busy() {
    if (this.releasing > 0) return true;
    for (const holder of this.deliveries) if (holder.inv && holder.inv.inflight > holder.inv.parked) return true;
    for (const work of this.works) if (work.busy()) return true;
    return false;
  }

  /**
   * Wait until every invocation in flight has parked, finished or gone idle. Returns false
   * when the run stopped (UNSUPPORTED) meanwhile.
   */
  async quiesce() {
    const run = this.run;
    for (let step = 0; step < MAX_QUIESCE_STEPS; step++) {
      if (run.stopped) return false;
      if (this.failure) return false;
      if (this.busy()) {
        if (await waitForChange(run, this.nextChange(), () => this.changed(), () => this.busy())) {
          run.markUnsupported("effect_hung", `an effect (or Web Crypto call) did not finish within the budget of ${run.effectHangMs} ms`);
          return false;
        }
        continue;
      }
      const version = this.version;
      await realTurn();
      if (this.version === version) return true;
    }
    run.markUnsupported("step_limit", `the invocations did not settle down within ${MAX_QUIESCE_STEPS} event-loop turns`);
    return false;
  }

  /** The holder of the delivery that owns `inv`, if it is in flight. @param {unknown} inv */
  holderOf(inv) {
    for (const holder of this.deliveries) if (holder.inv === inv) return holder;
    return null;
  }

  /**
   * The earliest timer of an invocation in flight (due order, then the order set), or of an
   * object's work whose delivery is in flight (after_work.mjs).
   */
  earliestTimer() {
    return this.run.globals.timers.earliest((timer) => this.holderOf(timer.owner) !== null || this.liveWork(timer.owner) !== null);
  }

  /** `owner` as an object's work in flight, or null. @param {unknown} owner @returns {ObjectWork | null} */
  liveWork(owner) {
    const work = /** @type {ObjectWork} */ (owner);
    return this.works.has(work) && work.live() ? work : null;
  }

  /**
   * Fire the earliest timer in its owner's context (the clock moves to its due time); an
   * object's timer fires inside the object, where its poller fires it when asked.
   */
  fireTimer() {
    const timer = this.earliestTimer();
    if (!timer) return false;
    const work = this.liveWork(timer.owner);
    if (work) {
      work.requestFire();
      this.changed();
      return true;
    }
    const holder = /** @type {Holder} */ (this.holderOf(timer.owner));
    return this.als.run(holder, () => this.run.globals.fire(timer));
  }

  /**
   * The moves on offer now, each with what taking it does.
   * @param {Source[]} sources the records' own sources, then the drive's
   * @returns {{option: object, take: () => void}[]}
   */
  moves(sources) {
    /** @type {{option: object, take: () => void}[]} */
    const moves = [];
    this.parked = this.parked.filter((p) => !p.inv.dead);
    for (const parked of this.parked) {
      // An object's work after its answer moves only once its delivery is in flight.
      if (this.isWork(parked.inv) && this.holderOf(parked.inv) === null) continue;
      moves.push({
        option: parked.object === null
          ? { kind: "effect", invocation: parked.inv.id, target: parked.target }
          : { kind: "effect", invocation: parked.inv.id, target: parked.target, object: parked.object },
        take: () => {
          this.parked = this.parked.filter((p) => p !== parked);
          this.turn = { kind: "effect", invocation: parked.inv };
          this.releasing++;
          parked.release(parked.inv);
        },
      });
    }
    // One start per source with an event ready while a slot is free: the records' own first.
    const slots = [...this.deliveries].filter((holder) => !holder.auto).length;
    for (const source of sources) {
      if (source.auto) continue;
      const event = slots < this.limit ? source.next() : null;
      if (event !== null) {
        moves.push({ option: { kind: "start", event }, take: () => { this.turn = { kind: "start" }; this.start(source); } });
      }
    }
    const timer = this.earliestTimer();
    if (timer && timer.due <= this.run.clock.now) {
      moves.push({ option: { kind: "timer" }, take: () => { this.turn = { kind: "timer" }; this.fireTimer(); } });
    }
    return moves;
  }

  /** @param {Invocation} inv @returns {boolean} whether `inv` is an object's work after its answers */
  isWork(inv) {
    const work = inv.hosts[0]?.work;
    return work !== undefined && work.inv === inv;
  }

  /**
   * The sources started with no decision (`auto`: an object's work after its answer, which
   * is already running): end each delivery whose work came to rest, start each work with
   * something pending. True when one ended or started.
   * @param {Source[]} sources
   */
  startAuto(sources) {
    let acted = false;
    for (const source of sources) {
      if (!source.auto) continue;
      if (source.settle?.()) acted = true;
      if (source.next() !== null) {
        this.start(source, true);
        acted = true;
      }
    }
    return acted;
  }

  /** Start the next delivery in a fresh async context. @param {Source} source @param {boolean} [auto] started with no decision */
  start(source, auto = false) {
    /** @type {Holder} */
    const holder = { inv: null, auto };
    this.deliveries.add(holder);
    const finished = () => {
      this.deliveries.delete(holder);
      this.parked = this.parked.filter((p) => p.inv !== holder.inv);
      this.changed();
    };
    /** @type {Promise<unknown>} */
    let delivery;
    try {
      delivery = this.als.run(holder, () => source.start());
    } catch (error) {
      delivery = Promise.reject(error);
    }
    delivery.then(finished, (error) => {
      this.failure ??= error;
      finished();
    });
  }

  /**
   * Run a drive's deliveries concurrently to the end (or until the run is UNSUPPORTED).
   * @param {Source} source
   */
  async drive(source) {
    const run = this.run;
    const sources = eventSources(run, source);
    try {
      let idle = 0;
      for (let turns = 0; turns < MAX_TURNS; turns++) {
        if (!(await this.quiesce())) return;
        this.turn = null;
        this.decision = null;
        // Alarms the clock has passed (the last turn's effects moved it) fire before the turn.
        this.ringAlarms("passed");
        if (run.stopped) return;
        if (this.startAuto(sources)) continue;
        const moves = this.moves(sources);
        if (moves.length === 0) {
          // Nothing can move: time passes to the earliest alarm, timer or delayed event;
          // timers and delayed events due at an alarm's instant come before the alarm.
          const wake = earliestWake(sources, run.clock.now);
          const timer = this.earliestTimer();
          const alarm = this.earliestAlarm();
          const waking = wake !== null && wake > run.clock.now ? wake : null;
          if (alarm && (!timer || alarm.due < timer.due) && (waking === null || alarm.due < waking)) {
            if (alarm.due > run.clock.now) run.clock.now = alarm.due;
            this.ringAlarms("now");
            idle = 0;
            continue;
          }
          if (wake !== null && wake > run.clock.now && (!timer || wake < timer.due)) {
            run.clock.now = wake;
            idle = 0;
            continue;
          }
          if (this.deliveries.size === 0) return;
          if (this.fireTimer()) { idle = 0; continue; }
          if (run.stopped) return;
          // One pass more than IDLE_TURNS: each pass follows a quiesce whose last turn was idle.
          if (++idle > IDLE_TURNS) {
            const waiting = [...this.deliveries].map((h) => h.inv?.id ?? "a delivery").join(", ");
            run.markUnsupported("unseen_wait", `invocation ${waiting} waits on something Eutaxy cannot see (no effect in flight, no timer set)`);
            return;
          }
          continue;
        }
        idle = 0;
        const decision = run.follower.turnAt(moves.map((m) => m.option));
        assert(decision.chosen >= 0 && decision.chosen < moves.length, () => `turn decision ${decision.chosen} outside its ${moves.length} options`);
        this.decision = decision;
        moves[decision.chosen].take();
      }
      run.markUnsupported("step_limit", `the run took more than ${MAX_TURNS} turns`);
    } finally {
      this.turn = null;
      this.decision = null;
      this.alarms.clear();
      // Deliveries still in flight (the run stopped) are let go: their waits end as unsupported.
      for (const holder of this.deliveries) holder.inv?.bump();
      if (this.failure) {
        const failure = this.failure;
        this.failure = null;
        throw failure;
      }
    }
  }
}

/**
 * Note reads of the clock and the random streams and new timers for the `more` flag, on
 * top of the installed virtual globals (undone with them, in reverse order).
 * @param {import("../globals.mjs").VirtualGlobals} globals @param {(what: string) => void} note
 */
function watchReads(globals, note) {
  const g = /** @type {any} */ (globalThis);
  const VirtualDate = g.Date;
  /** @type {any} */
  const watchedDate = new Proxy(VirtualDate, {
    apply(target, self, args) {
      note("clock");
      return Reflect.apply(target, self, args);
    },
    construct(target, args, newTarget) {
      if (args.length === 0) note("clock");
      return Reflect.construct(target, args, newTarget === watchedDate ? target : newTarget);
    },
    get(target, key) {
      if (key === "now") return () => { note("clock"); return target.now(); };
      return Reflect.get(target, key, target);
    },
  });
  globals.set(g, "Date", watchedDate);
  /** @param {any} object @param {string} name @param {string} what */
  const wrap = (object, name, what) => {
    const inner = object?.[name];
    if (typeof inner !== "function") return;
    globals.set(object, name, function (/** @type {unknown[]} */ ...args) {
      note(what);
      // @ts-ignore: called as the global was
      return inner.apply(this, args);
    });
  };
  wrap(Math, "random", "randomness");
  wrap(g.crypto, "getRandomValues", "randomness");
  wrap(g.crypto, "randomUUID", "randomness");
  wrap(g.performance, "now", "clock");
  wrap(g, "setTimeout", "timer");
  wrap(g, "setInterval", "timer");
  wrap(g.scheduler, "wait", "timer");
}
