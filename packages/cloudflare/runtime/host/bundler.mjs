// @ts-check
/**
 * The bundler: the user's Worker and the in-isolate runtime in one ES module (esbuild).
 * The bundle's entry imports the patch module first, re-exports the Worker's default and
 * adds the control entrypoint (CONTROL_EXPORT) the host talks to and the Worker's Durable
 * Object classes, each wrapped (objects.mjs); `cloudflare:sockets`
 * resolves to the runtime's trap; a plugin puts a recording wrapper in front of each spec
 * module (corePlugin).
 */

import { readFileSync, realpathSync } from "node:fs";
import { SourceMap } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { UserError, toolchain } from "./toolchain.mjs";

const esbuild = toolchain.esbuild;

/** The runtime's folder, where the modules bundled with the Worker live. */
const RUNTIME_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
/** The bundle's named export the host opens a direct socket to. */
export const CONTROL_EXPORT = "__EutaxyControl";

/**
 * The names a spec module exports, read from esbuild's metafile of a throwaway build.
 * @param {string} file @param {string} workDir @returns {Promise<string[]>}
 */
async function exportNames(file, workDir) {
  try {
    const built = await esbuild.build({
      entryPoints: [file], bundle: true, write: false, metafile: true, format: "esm", platform: "neutral",
      target: "es2022", outdir: workDir, external: ["cloudflare:*", "node:*"], logLevel: "silent",
      conditions: ["workerd", "worker", "browser"], mainFields: ["browser", "module", "main"],
    });
    const outputs = Object.values(built.metafile?.outputs ?? {});
    return outputs.flatMap((output) => output.exports ?? []);
  } catch (error) {
    const errors = /** @type {any} */ (error).errors ?? [];
    const lines = errors.map((/** @type {any} */ e) => `${e.location ? `${e.location.file}:${e.location.line}: ` : ""}${e.text}`);
    throw new UserError(`the spec module ${file} does not bundle: ${lines.join("; ") || String(error)}`);
  }
}

/**
 * The esbuild plugin that puts a recording wrapper (core.mjs) between each spec module and
 * every importer outside it; the wrapper alone imports the real module (`eutaxy-real:`), so
 * the module's calls between its own functions stay unrecorded.
 * @param {string[]} specs absolute paths @param {string} workDir @returns {Promise<import("esbuild").Plugin>}
 */
async function corePlugin(specs, workDir) {
  /** @type {Map<string, string[]>} */
  const names = new Map();
  for (const spec of specs) {
    if (!path.isAbsolute(spec)) throw new UserError(`specs must be absolute paths, got ${spec}`);
    /** @type {string} */
    let real;
    try {
      // esbuild resolves imports to real paths, so the wrapper is keyed by the real path too.
      real = realpathSync(spec);
    } catch {
      throw new UserError(`the spec module ${spec} does not exist`);
    }
    names.set(real, await exportNames(real, workDir));
  }
  // Decisions are recorded by name, so a name two spec modules export is refused at load
  // (core.mjs checks again, for functions, when the wrappers evaluate).
  /** @type {Map<string, string>} */
  const owner = new Map();
  for (const [spec, exported] of names) {
    for (const name of exported) {
      if (name === "default") continue;
      const first = owner.get(name);
      if (first !== undefined && first !== spec) {
        throw new UserError(`the spec modules ${first} and ${spec} both export ${name}; decisions are recorded by name, so rename one`);
      }
      owner.set(name, spec);
    }
  }
  const REAL = "eutaxy-real:";
  /** @param {string} spec */
  const wrapper = (spec) => {
    const exported = /** @type {string[]} */ (names.get(spec));
    const lines = [
      `import * as real from ${JSON.stringify(REAL + spec)};`,
      `import { coreExport } from ${JSON.stringify(path.join(RUNTIME_DIR, "core.mjs"))};`,
    ];
    exported.forEach((name, index) => {
      lines.push(`const e${index} = coreExport(${JSON.stringify(spec)}, ${JSON.stringify(name)}, real[${JSON.stringify(name)}]);`);
      lines.push(name === "default" ? `export { e${index} as default };` : `export { e${index} as ${JSON.stringify(name)} };`);
    });
    return lines.join("\n");
  };
  return {
    name: "eutaxy-core",
    setup(build) {
      build.onResolve({ filter: /^eutaxy-real:/ }, (args) => ({ path: args.path.slice(REAL.length) }));
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.eutaxyCore || args.kind === "entry-point") return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, namespace: "file", pluginData: { eutaxyCore: true },
        });
        if (resolved.errors.length || resolved.external || !names.has(resolved.path)) return undefined;
        return { path: resolved.path, namespace: "eutaxy-core" };
      });
      build.onLoad({ filter: /.*/, namespace: "eutaxy-core" }, (args) => ({ contents: wrapper(args.path), resolveDir: RUNTIME_DIR, loader: "js" }));
    },
  };
}

/**
 * Bundle the user's entry with the runtime: the patch module first, so it captures the real
 * globals before the Worker's module evaluates; `cloudflare:sockets` in user code resolves to
 * the runtime's trap; imports of a spec module from outside it go through its recording
 * wrapper (corePlugin).
 * Each Durable Object class the config binds is exported wrapped (objects.mjs), under its name.
 * The config's `define` and `alias` go to esbuild as wrangler gives them to it.
 * @param {string} entry @param {string} outFile @param {string[]} [specs] @param {string[]} [objectClasses]
 * @param {{define?: Record<string, string>, alias?: Record<string, string>}} [options]
 */
export async function bundle(entry, outFile, specs = [], objectClasses = [], options = {}) {
  const runtime = (/** @type {string} */ name) => JSON.stringify(path.join(RUNTIME_DIR, name));
  const contents = [
    `import ${runtime("patch.mjs")};`,
    `import * as userModule from ${JSON.stringify(entry)};`,
    `import { createControl } from ${runtime("entry.mjs")};`,
    // A Worker without a default export still starts, so the runtime can say so in its terms.
    `export default userModule.default ?? {};`,
    `export const ${CONTROL_EXPORT} = createControl(userModule);`,
    ...(objectClasses.length ? [`import { wrapDurableObject } from ${runtime("objects.mjs")};`] : []),
    ...objectClasses.map((name) => `export const ${name} = wrapDurableObject(userModule[${JSON.stringify(name)}], ${JSON.stringify(name)});`),
  ].join("\n");
  /** @type {import("esbuild").Plugin} */
  const sockets = {
    name: "eutaxy-sockets",
    setup(build) {
      build.onResolve({ filter: /^cloudflare:sockets$/ }, () => ({ path: path.join(RUNTIME_DIR, "sockets.mjs") }));
    },
  };
  const plugins = specs.length ? [sockets, await corePlugin(specs, path.dirname(outFile))] : [sockets];
  try {
    await esbuild.build({
      stdin: { contents, resolveDir: RUNTIME_DIR, sourcefile: "eutaxy-entry.mjs", loader: "js" },
      bundle: true, format: "esm", platform: "neutral", target: "es2022", outfile: outFile,
      // The map stays beside the bundle, unnamed in it: the host alone reads it (sourcePositions).
      sourcemap: "external",
      conditions: ["workerd", "worker", "browser"], mainFields: ["browser", "module", "main"],
      external: ["cloudflare:*", "node:*"], plugins,
      define: options.define ?? {}, alias: options.alias ?? {},
      logLevel: "silent", legalComments: "none",
    });
  } catch (error) {
    const errors = /** @type {any} */ (error).errors ?? [];
    // A location in the generated entry is the import of the user's entry: say only what failed.
    // esbuild's locations are relative to the host's directory: absolute, so Python can show them from the user's.
    const where = (/** @type {any} */ at) => (at && !at.file.endsWith("eutaxy-entry.mjs") ? `${path.resolve(at.file)}:${at.line}:${at.column}: ` : "");
    const lines = errors.map((/** @type {any} */ e) => `${where(e.location)}${e.text}`);
    throw new UserError(`the Worker does not bundle: ${lines.join("; ") || String(error)}`);
  }
}

/**
 * `text` with each position in the bundle (`worker.bundle.mjs:LINE:COLUMN`, as workerd
 * prints a stack) replaced by the source's absolute path, line and column, read from the
 * bundle's source map; a position the map does not cover, or a text with no map, is kept.
 * @param {string} text @param {string} bundleFile @returns {string}
 */
export function sourcePositions(text, bundleFile) {
  /** @type {SourceMap} */
  let map;
  try {
    map = new SourceMap(JSON.parse(readFileSync(`${bundleFile}.map`, "utf8")));
  } catch {
    return text;
  }
  const name = path.basename(bundleFile).replace(/[.]/g, "[.]");
  const at = new RegExp(`(?:[^\\s()]*/)?${name}:(\\d+):(\\d+)`, "g");
  return text.replace(at, (whole, line, column) => {
    const origin = map.findOrigin(Number(line), Number(column));
    if (!("fileName" in origin) || !origin.fileName) return whole;
    const file = path.resolve(path.dirname(bundleFile), origin.fileName);
    return `${file}:${origin.lineNumber}:${origin.columnNumber}`;
  });
}
