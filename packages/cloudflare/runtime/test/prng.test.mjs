// @ts-check
/**
 * The JavaScript xoshiro128** must draw exactly what core's Python one draws: the run plan
 * carries only state words, so any difference would make a replay take other faults and
 * other random values. Checked two ways: against core's shared vector file, and against
 * core's generator itself (run through python3) on a few states.
 */

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import test from "node:test";

import { Xoshiro128 } from "../prng.mjs";
import { REPO } from "./helpers.mjs";

const VECTORS = path.join(REPO, "packages/core/src/eutaxy/core/prng_vectors.json");

/** @typedef {{seed: string, name: string | null, words: number[], outputs: number[], below10: number[], random: number[]}} Vector */

test("the shared vector file's draws match", { skip: existsSync(VECTORS) ? false : `no vector file yet at ${VECTORS}` }, () => {
  const data = JSON.parse(readFileSync(VECTORS, "utf8"));
  /** @type {Vector[]} */
  const vectors = data.vectors;
  assert.ok(vectors.length > 0, "the vector file holds no vectors");
  const reference = new Xoshiro128(data.reference.words);
  assert.deepEqual(data.reference.outputs.map(() => reference.nextU32()), data.reference.outputs, "the reference state");
  for (const v of vectors) {
    const label = `seed ${JSON.stringify(v.seed)} stream ${v.name}`;
    // Each list is drawn from a fresh generator at the vector's state.
    const a = new Xoshiro128(v.words), b = new Xoshiro128(v.words), c = new Xoshiro128(v.words);
    assert.deepEqual(v.outputs.map(() => a.nextU32()), v.outputs, `next_u32, ${label}`);
    assert.deepEqual(v.below10.map(() => b.below(10)), v.below10, `below(10), ${label}`);
    assert.deepEqual(v.random.map(() => c.random()), v.random, `random(), ${label}`);
    // The words are what Python sends in a plan; the derivation is checked too, so a
    // JavaScript-side plan builder (a test, a future TypeScript front-end) would agree.
    assert.deepEqual(seedWords(v.seed, v.name), v.words, `seed words, ${label}`);
  }
});

/** core's seed_words, with Node's SHA-256 (tests only; the runtime gets words in the plan). @param {string} seed @param {string | null} name */
function seedWords(seed, name) {
  const digest = createHash("sha256").update(name === null ? seed : `${seed}/${name}`, "utf8").digest();
  const words = [0, 4, 8, 12].map((offset) => digest.readUInt32LE(offset));
  return words.every((w) => w === 0) ? [1, 0, 0, 0] : words;
}

function python(/** @type {string} */ source) {
  const env = { ...process.env, PYTHONPATH: [path.join(REPO, "packages/spec/src"), path.join(REPO, "packages/core/src")].join(":") };
  return execFileSync("python3", ["-c", source], { env, encoding: "utf8" });
}

const havePython = (() => {
  try {
    python("import eutaxy.core.prng");
    return true;
  } catch {
    return false;
  }
})();

test("draws match core's Python generator", { skip: havePython ? false : "python3 with eutaxy.core is not available" }, () => {
  const states = [[1, 0, 0, 0], [1, 2, 3, 4], [0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff], [0x9e3779b9, 0x243f6a88, 0xb7e15162, 0x12345678]];
  const expected = JSON.parse(python(`
import json
from eutaxy.core.prng import Xoshiro128, seed_words
out = []
for words in ${JSON.stringify(states)}:
    a, b, c = Xoshiro128(words), Xoshiro128(words), Xoshiro128(words)
    out.append({"u32": [a.next_u32() for _ in range(40)], "random": [b.random() for _ in range(10)], "below": [c.below(7) for _ in range(20)]})
print(json.dumps({"cases": out, "seeded": list(seed_words("queue-duplicate-write", "globals"))}))
`));
  states.forEach((words, i) => {
    const a = new Xoshiro128(words), b = new Xoshiro128(words), c = new Xoshiro128(words);
    assert.deepEqual(Array.from({ length: 40 }, () => a.nextU32()), expected.cases[i].u32);
    assert.deepEqual(Array.from({ length: 10 }, () => b.random()), expected.cases[i].random);
    assert.deepEqual(Array.from({ length: 20 }, () => c.below(7)), expected.cases[i].below);
  });
  // A state Python derives from a seed is one this generator accepts and draws from.
  assert.equal(typeof new Xoshiro128(expected.seeded).nextU32(), "number");
});

test("the all-zero state and bad words are refused", () => {
  assert.throws(() => new Xoshiro128([0, 0, 0, 0]), /all-zero/);
  assert.throws(() => new Xoshiro128([1, 2, 3]), /four/);
  assert.throws(() => new Xoshiro128([1, 2, 3, 2 ** 32]), /range/);
  assert.throws(() => new Xoshiro128([1, 0, 0, 0]).below(0), /positive/);
});
