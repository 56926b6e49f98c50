// @ts-check
/**
 * A no_bundle Worker's modules, as wrangler finds them: the entry first, then every file under
 * the base folder a module rule matches (the first matching rule gives the type), by name in
 * sorted order; a `.wrangler` folder and a wrangler config there are skipped, as is a file no
 * rule matches (a source map, Vite's manifest).
 */

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";

import { unbundledModules } from "../host/bundler.mjs";

test("the entry, then the files the rules match by name, typed by the first rule that matches", () => {
  const base = mkdtempSync(path.join(os.tmpdir(), "eutaxy-unbundled-"));
  try {
    for (const name of ["index.js", "index.js.map", "wrangler.json", "assets/b.js", "assets/a.mjs", "page.html", "data.bin", ".vite/manifest.json", ".wrangler/tmp/x.js", "lib/legacy.cjs"]) {
      mkdirSync(path.dirname(path.join(base, name)), { recursive: true });
      writeFileSync(path.join(base, name), "");
    }
    const rules = [
      { type: "ESModule", globs: ["**/*.js", "**/*.mjs"] },
      { type: "CommonJS", globs: ["**/*.cjs", "**/*.js"] },
      { type: "Text", globs: ["**/*.txt", "**/*.html"] },
      { type: "Data", globs: ["**/*.bin"] },
    ];
    const found = unbundledModules(path.join(base, "index.js"), base, rules).map(({ name, type }) => `${type} ${name}`);
    assert.deepEqual(found, ["ESModule index.js", "ESModule assets/a.mjs", "ESModule assets/b.js", "Data data.bin", "CommonJS lib/legacy.cjs", "Text page.html"]);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
