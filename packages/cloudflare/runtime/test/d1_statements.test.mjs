// @ts-check
/**
 * The runtime picks a D1 statement's fault ladder with `isRead`; Python's
 * eutaxy.core.statements classes the same statement for the selectors. Both read core's
 * vector file, so a statement the runtime treats as a read is one `d1_read()` selects.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import test from "node:test";

import { isRead } from "../d1.mjs";
import { REPO } from "./helpers.mjs";

const VECTORS = path.join(REPO, "packages/core/src/eutaxy/core/d1_statements.json");

test("isRead is true exactly for the statements core classes as reads", () => {
  /** @type {{vectors: {sql: string, class: string}[]}} */
  const data = JSON.parse(readFileSync(VECTORS, "utf8"));
  assert.ok(data.vectors.length > 0, "the vector file holds no vectors");
  for (const v of data.vectors) assert.equal(isRead(v.sql), v.class === "read", JSON.stringify(v.sql));
});
