// @ts-check
/**
 * xoshiro128** 1.1 over 32-bit words: the one generator both sides of the protocol use.
 *
 * Python derives a stream's four state words (SHA-256 of the seed text) and sends them in
 * the run plan, so this side needs only the generator itself; `prng_vectors.json` in core
 * pins the outputs for both test suites.
 */

/** @param {number} value @param {number} shift */
function rotl(value, shift) {
  return ((value << shift) | (value >>> (32 - shift))) >>> 0;
}

export class Xoshiro128 {
  /** @param {ArrayLike<number>} words four uint32 state words, not all zero */
  constructor(words) {
    if (!words || words.length !== 4) throw new TypeError(`xoshiro128** needs four uint32 words, got ${JSON.stringify(words)}`);
    const state = Uint32Array.from(Array.from(words, (word) => {
      if (!Number.isInteger(word) || word < 0 || word > 0xffffffff) throw new TypeError(`xoshiro128** word out of range: ${word}`);
      return word;
    }));
    if (state.every((word) => word === 0)) throw new TypeError("xoshiro128** cannot start from the all-zero state");
    /** @type {Uint32Array} */
    this.s = state;
  }

  /** The current state words, as a plan carries them. */
  get words() {
    return Array.from(this.s);
  }

  /** @returns {number} the next uint32 */
  nextU32() {
    const s = this.s;
    const result = Math.imul(rotl(Math.imul(s[1], 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1] << 9) >>> 0;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  }

  /** A draw in [0, n): `nextU32() % n`, the reduction Python uses too. @param {number} n */
  below(n) {
    if (!Number.isInteger(n) || n <= 0) throw new RangeError(`below() needs a positive bound, got ${n}`);
    return this.nextU32() % n;
  }

  /** A draw in [0, 1): `nextU32() / 2**32`. */
  random() {
    return this.nextU32() / 4294967296;
  }
}
