// @ts-check
/**
 * The plan follower: the runtime's half of the Chooser. It holds no policy of its own;
 * every decision takes the plan's forced prefix while it lasts, then the plan's policy,
 * and is recorded with its options and the index taken, so Python can replay, extend
 * or shrink the choice sequence.
 *
 * Fault decisions are made at effect points; turn decisions (concurrent runs only, see
 * turns.mjs) pick the next move among the options the scheduler offers. A sequential run
 * makes no turn decision: with one invocation in flight nothing else can move. A point is
 * eligible when its ladder is not empty and fewer than `maxFaults` faults were injected so
 * far in the run; the eligible ordinal is the 0-based count of eligible points reached.
 *
 * Turn picks: the forced prefix first (as for faults), then the policy: `seeded` takes
 * `turns.below(len(options))` from the plan's `streams.turns` words, `replay` the next
 * recorded pick of `policy.turns` and the turn stream once they run out, `first` 0. The
 * stream is drawn only when the policy is asked, so a forced prefix leaves it untouched.
 *
 * Batch decisions (queue deliveries, queue.mjs): when a delivery starts where the platform
 * would take `n` >= 2 messages while fewer than `maxShortBatches` deliveries of the run took
 * a short batch, the options are `[n, 1, ..., n-1]` (option 0 is the platform's batch) and
 * the answer is the number of messages taken. `seeded` draws `below(len(options))` from the
 * turn stream (one stream for every non-fault decision, in decision order), `replay` takes
 * the size `policy.batches` names for the invocation the delivery starts when it is among
 * the options (else option 0), `first` 0. Past the bound, or under two messages, no decision.
 *
 * Every field the follower reads must be in the plan (`prefix`, `policy` with its own
 * fields, `maxFaults`, `maxShortBatches`, `streams.turns`): a plan without one is refused naming the field,
 * never followed with a zero or an empty list (a missing `maxFaults` read as 0 would explore
 * without faults and still say BOUNDED).
 *
 * engine/follower.py is the same rule in Python; both are tested against core's
 * vectors/follower.json (test/plan.test.mjs here), so neither can drift alone.
 */

import { Xoshiro128 } from "./prng.mjs";

/**
 * @typedef {{kind: "seeded", faults: Record<string, number>}
 *   | {kind: "replay", faults: {invocation: string, ordinal: number, fault: string}[], turns: number[], batches: {invocation: string, size: number}[]}
 *   | {kind: "first"}} Policy
 * @typedef {{kind: "fault", invocation: string, ordinal: number, target: string, options: string[], chosen: number}} FaultDecision
 * @typedef {{kind: "turn", options: object[], chosen: number, more: boolean}} TurnDecision
 * @typedef {{kind: "batch", invocation: string, target: string, options: number[], chosen: number}} BatchDecision
 */

/**
 * A field the plan must carry, checked: a plan missing it (or carrying a value of another
 * shape) is Eutaxy's own bug, never a default. Python's RunPlan.to_data writes every one.
 * @template T
 * @param {T | undefined} value @param {string} field @param {(value: any) => boolean} fits @param {string} expected
 * @returns {T}
 */
function need(value, field, fits, expected) {
  if (value === undefined) throw new Error(`plan: ${field} is missing (expected ${expected}; core.protocol's RunPlan.to_data writes it)`);
  if (!fits(value)) throw new Error(`plan: ${field}: expected ${expected}, found ${JSON.stringify(value)}`);
  return value;
}

/** @param {unknown} value */
const isNaturalNumber = (value) => Number.isInteger(value) && /** @type {number} */ (value) >= 0;
/** @param {unknown} value */
const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

export class PlanFollower {
  /** @param {{prefix: number[], policy: Policy, maxFaults: number, maxShortBatches: number, streams: {turns: number[]}}} plan */
  constructor(plan) {
    /** Forced choice indices, taken first, one per decision. */
    this.prefix = need(plan.prefix, "prefix", Array.isArray, "a list of option indices");
    /** @type {Policy} */
    this.policy = need(plan.policy, "policy", isObject, "an object with a kind");
    if (!["seeded", "replay", "first"].includes(this.policy.kind)) {
      throw new Error(`plan: unknown policy kind ${JSON.stringify(this.policy.kind)}`);
    }
    if (this.policy.kind === "seeded") {
      // core.protocol's SeededPolicy sends kind draws only; a kind by name is what
      // docs/protocol.schema.json refuses too (engine/follower.py refuses it the same way).
      const faults = need(this.policy.faults, "policy.faults", isObject, "an object of eligible ordinal -> kind draw");
      for (const [ordinal, draw] of Object.entries(faults)) {
        if (!Number.isInteger(draw) || /** @type {number} */ (draw) < 0 || /** @type {number} */ (draw) >= 2 ** 32) {
          throw new Error(`plan: seeded fault at eligible ordinal ${ordinal}: expected a 32-bit kind draw, found ${JSON.stringify(draw)}`);
        }
      }
    }
    if (this.policy.kind === "replay") {
      need(this.policy.faults, "policy.faults", Array.isArray, "a list of faults by invocation and ordinal");
      need(this.policy.turns, "policy.turns", Array.isArray, "a list of turn picks");
      need(this.policy.batches, "policy.batches", Array.isArray, "a list of short batches by invocation");
    }
    /** No fault decision is offered once this many faults were injected in the run. */
    this.maxFaults = need(plan.maxFaults, "maxFaults", isNaturalNumber, "a non-negative integer");
    /** No batch decision is offered once this many deliveries took a short batch. */
    this.maxShortBatches = need(plan.maxShortBatches, "maxShortBatches", isNaturalNumber, "a non-negative integer");
    /** Deliveries of the run that took a short batch. */
    this.shortBatches = 0;
    /** @type {(FaultDecision | TurnDecision | BatchDecision)[]} every decision taken, in order */
    this.decisions = [];
    /** The turn stream's state words; the stream itself is made on the first draw. */
    this.turnWords = need(need(plan.streams, "streams", isObject, "an object of stream words").turns, "streams.turns", Array.isArray, "the turn stream's four state words");
    /** @type {Xoshiro128 | null} */
    this.turnStream = null;
    /** Turn decisions taken so far (indexes `policy.turns` under replay). */
    this.turnsTaken = 0;
    /** Eligible points reached; every fault decision is made at one, so decisions <= eligible. */
    this.eligible = 0;
    this.faultsInjected = 0;
  }

  /**
   * Decide the fault at one effect point.
   * @param {string} invocation @param {number} ordinal @param {string} target
   * @param {readonly string[]} ladder the point's allowed faults, in ladder order
   * @returns {string} "none" or the fault kind to inject
   */
  faultAt(invocation, ordinal, target, ladder) {
    if (ladder.length === 0 || this.faultsInjected >= this.maxFaults) return "none";
    const options = ["none", ...ladder];
    const eligibleOrdinal = this.eligible++;
    const index = this.decisions.length;
    let chosen = index < this.prefix.length ? this.prefix[index] : this.fromPolicy(invocation, ordinal, eligibleOrdinal, options);
    // A forced index that no longer fits this point takes the simplest option (misalignment);
    // Python sees it as prefix[i] != decisions[i].chosen.
    if (!Number.isInteger(chosen) || chosen < 0 || chosen >= options.length) chosen = 0;
    this.decisions.push({ kind: "fault", invocation, ordinal, target, options, chosen });
    if (chosen > 0) this.faultsInjected++;
    return options[chosen];
  }

  /** @param {string} invocation @param {number} ordinal @param {number} eligibleOrdinal @param {string[]} options */
  fromPolicy(invocation, ordinal, eligibleOrdinal, options) {
    const policy = this.policy;
    if (policy.kind === "first") return 0;
    if (policy.kind === "seeded") {
      const drawn = policy.faults[String(eligibleOrdinal)];
      if (drawn === undefined) return 0;
      // Core sends a 32-bit kind draw: the kind is allowed[draw % len(allowed)], so it is
      // always one the point allows.
      return 1 + (drawn % (options.length - 1));
    }
    const fault = policy.faults.find((f) => f.invocation === invocation && f.ordinal === ordinal);
    if (!fault) return 0;
    const at = options.indexOf(fault.fault);
    return at > 0 ? at : 0;
  }

  /**
   * Decide one turn: the index of the option taken. The decision is recorded with `more`
   * false; the scheduler sets it once the turn has run.
   * @param {object[]} options @returns {TurnDecision}
   */
  turnAt(options) {
    if (options.length === 0) throw new Error("plan: a turn decision needs at least one option");
    const index = this.decisions.length;
    const nth = this.turnsTaken++;
    let chosen = index < this.prefix.length ? this.prefix[index] : this.turnFromPolicy(nth, options.length);
    if (!Number.isInteger(chosen) || chosen < 0 || chosen >= options.length) chosen = 0;
    /** @type {TurnDecision} */
    const decision = { kind: "turn", options, chosen, more: false };
    this.decisions.push(decision);
    return decision;
  }

  /** @param {number} nth @param {number} count */
  turnFromPolicy(nth, count) {
    const policy = this.policy;
    if (policy.kind === "first") return 0;
    if (policy.kind === "replay") {
      const recorded = policy.turns;
      if (nth < recorded.length) return recorded[nth];
    }
    return this.draw(count);
  }

  /** One draw below `count` from the turn stream (made on the first draw). @param {number} count */
  draw(count) {
    if (!this.turnStream) this.turnStream = new Xoshiro128(this.turnWords);
    return this.turnStream.below(count);
  }

  /**
   * How many of the `count` messages the platform would deliver together this delivery
   * takes; a decision is recorded only when a short batch could be taken.
   * @param {string} invocation the invocation the delivery starts @param {string} target the queue
   * @param {number} count @returns {number}
   */
  batchAt(invocation, target, count) {
    if (count < 2 || this.shortBatches >= this.maxShortBatches) return count;
    const options = [count];
    for (let size = 1; size < count; size++) options.push(size);
    const index = this.decisions.length;
    let chosen = index < this.prefix.length ? this.prefix[index] : this.batchFromPolicy(invocation, options);
    if (!Number.isInteger(chosen) || chosen < 0 || chosen >= options.length) chosen = 0;
    this.decisions.push({ kind: "batch", invocation, target, options, chosen });
    if (chosen > 0) this.shortBatches++;
    return options[chosen];
  }

  /** @param {string} invocation @param {number[]} options */
  batchFromPolicy(invocation, options) {
    const policy = this.policy;
    if (policy.kind === "first") return 0;
    if (policy.kind === "replay") {
      const batch = policy.batches.find((b) => b.invocation === invocation);
      if (!batch) return 0;
      const at = options.indexOf(batch.size);
      return at > 0 ? at : 0;
    }
    return this.draw(options.length);
  }
}
