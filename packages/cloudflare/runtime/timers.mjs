// @ts-check
/**
 * The one timer queue: entries ordered by (due, seq), `seq` the order they were set (or
 * re-armed). The Worker's virtual timers (globals.mjs) and the turn scheduler's engine alarms
 * (scheduler/turns.mjs) are each one of these, so "the earliest" means the same everywhere:
 * the lowest due time, and on a tie the one set first.
 */

import { assert } from "./assert.mjs";

/** @template {{due: number, seq: number}} T */
export class TimerQueue {
  constructor() {
    /** @type {T[]} entries not yet fired or cancelled, in the order set */
    this.entries = [];
    /** The next entry's `seq`; every entry set or re-armed takes a higher one. */
    this.nextSeq = 0;
  }

  /** Set an entry (its `seq` is assigned here). @param {Omit<T, "seq">} entry @returns {T} */
  add(entry) {
    const added = /** @type {T} */ ({ ...entry, seq: this.nextSeq++ });
    this.entries.push(added);
    return added;
  }

  /** Re-arm an entry that stays set (an interval): due later, behind everything set before. @param {T} entry @param {number} due */
  rearm(entry, due) {
    assert(due >= entry.due, () => `a timer was re-armed earlier (${due}) than it was due (${entry.due})`);
    entry.due = due;
    entry.seq = this.nextSeq++;
  }

  /** @param {T} entry */
  remove(entry) {
    this.entries = this.entries.filter((e) => e !== entry);
  }

  /** @param {(entry: T) => boolean} drop */
  removeWhere(drop) {
    this.entries = this.entries.filter((e) => !drop(e));
  }

  /** @param {(entry: T) => boolean} test */
  some(test) {
    return this.entries.some(test);
  }

  clear() {
    this.entries = [];
  }

  /**
   * The earliest entry `accept` takes, by (due, seq); null when it takes none.
   * @param {(entry: T) => boolean} [accept] @returns {T | null}
   */
  earliest(accept) {
    /** @type {T | null} */
    let best = null;
    for (const entry of this.entries) {
      if (accept && !accept(entry)) continue;
      if (!best || entry.due < best.due || (entry.due === best.due && entry.seq < best.seq)) best = entry;
    }
    return best;
  }
}
