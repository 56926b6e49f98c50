// @ts-check
/**
 * A no_bundle Worker's modules, as wrangler finds them: the entry first, then every file under
 * the base folder a module rule matches (the first matching rule gives the type), by name in
 * sorted order; a `.wrangler` folder and a wrangler config there are skipped, as is a file no
 * rule matches (a source map, Vite's manifest). A stack position in one of them is told as the
 * module's own file and line, or through the source map beside it when there is one.
 */

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";

import { StackMapper, UNBUNDLED_DIR, unbundledModules } from "../host/bundler.mjs";
import { toolchain } from "../host/toolchain.mjs";

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

test("a position in a no_bundle module is its file and line from the config's folder, through the map beside it when there is one", async () => {
  const project = mkdtempSync(path.join(os.tmpdir(), "eutaxy-unbundled-map-"));
  const work = mkdtempSync(path.join(os.tmpdir(), "eutaxy-unbundled-work-"));
  try {
    // A build's output: index.js compiled from worker/index.ts with its map beside it (sources
    // named from the map's folder, as Vite writes them); plain.js loaded as it is, with no map.
    const source = ["type Order = { id: string };", "", "export async function record(order: Order) {", "  return order.id;", "}", ""].join("\n");
    mkdirSync(path.join(project, "worker"));
    writeFileSync(path.join(project, "worker", "index.ts"), source);
    const out = path.join(project, "dist", "shop");
    await toolchain.esbuild.build({ entryPoints: [path.join(project, "worker", "index.ts")], outfile: path.join(out, "index.js"), sourcemap: "external", format: "esm", logLevel: "silent" });
    mkdirSync(path.join(out, "lib"));
    writeFileSync(path.join(out, "lib", "plain.js"), "export const one = 1;\nexport function two() { return 2; }\n");
    const built = readFileSync(path.join(out, "index.js"), "utf8").split("\n");
    const line = built.findIndex((text) => text.includes("return order.id")) + 1;
    const column = built[line - 1].indexOf("order.id") + 1;
    const mapper = new StackMapper(path.join(work, "worker.bundle.mjs"), project, out);
    const module = (/** @type {string} */ name) => encodeURIComponent(`${UNBUNDLED_DIR}/${name}`);
    // Innermost first: the patch module is Eutaxy's own, so the Worker's frame is the next one.
    assert.deepEqual(mapper.site(`${encodeURIComponent("eutaxy-patch.mjs")}:3:9 ${module("index.js")}:${line}:${column}`), { file: "worker/index.ts", line: 4, column: 10 });
    assert.deepEqual(mapper.site(`${module("lib/plain.js")}:2:25`), { file: "dist/shop/lib/plain.js", line: 2, column: 25 });
    // Eutaxy's own frames only, or a bundle position with no bundle map: no source.
    assert.equal(mapper.site(`${encodeURIComponent("eutaxy-patch.mjs")}:3:9`), null);
    assert.equal(mapper.site("12:5"), null);
    const stack = [
      "Error: no such order",
      `    at record (file://${work}/${UNBUNDLED_DIR}/index.js:${line}:${column})`,
      `    at Object.fetch (file://${work}/${UNBUNDLED_DIR}/lib/plain.js:2:25)`,
      `    at wrapped (file://${work}/eutaxy-patch.mjs:40:3)`,
    ].join("\n");
    assert.equal(mapper.thrownAt(stack), "worker/index.ts:4");
    assert.equal(mapper.text(stack), ["Error: no such order", "    at record (worker/index.ts:4:10)", "    at Object.fetch (dist/shop/lib/plain.js:2:25)"].join("\n"));
    // A bundled Worker's mapper leaves a module position alone: no module is loaded beside its bundle.
    assert.equal(new StackMapper(path.join(work, "worker.bundle.mjs"), project).site(`${module("index.js")}:${line}:${column}`), null);
  } finally {
    rmSync(project, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
});
