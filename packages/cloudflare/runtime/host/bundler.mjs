// @ts-check
/**
 * The bundler: the user's Worker and the in-isolate runtime in one ES module (esbuild).
 * The bundle's entry imports the patch module first, re-exports the Worker's default and
 * adds the control entrypoint (CONTROL_EXPORT) the host talks to and the Worker's Durable
 * Object classes, each wrapped (objects.mjs); `cloudflare:sockets`
 * resolves to the runtime's trap; a plugin puts a recording wrapper in front of each spec
 * module (corePlugin).
 *
 * The Worker is built with the options wrangler gives esbuild (its deployment bundle): the
 * browser platform (so a dependency's `browser` field maps its imports), the conditions
 * `workerd`, `worker`, `browser`, target es2022, JSX allowed in .js/.mjs/.cjs, names kept,
 * the config's `define`, `alias` and `tsconfig`; TypeScript and decorators (standard, or
 * legacy where the tsconfig sets experimentalDecorators) are esbuild's own. An import the
 * module rules match (wrangler's defaults and the config's `rules`, merged in Python) is
 * not bundled: the file is written beside the bundle as a module of its type (Text: a
 * string, Data: an ArrayBuffer, CompiledWasm: a WebAssembly.Module) and the import points
 * at it, as wrangler uploads it. Node built-ins: `node:*` is left to workerd; under
 * nodejs_compat (v2) the Worker gets wrangler's Node.js compatibility (nodeCompatEnv,
 * nodeCompatPlugin): a built-in workerd has is its module, one it lacks unenv's polyfill,
 * `process` and `performance` wrangler's globals, a `require()` of a built-in an import.
 *
 * A Worker whose config sets `no_bundle` (a build's generated config, the Cloudflare Vite
 * plugin's, does) is not bundled: its entry and every file under its base folder a module rule
 * matches are copied beside the bundle under their names (UNBUNDLED_DIR) and loaded as a module
 * list, as wrangler uploads them, so an import between them, a computed one too, is workerd's to
 * resolve. The bundle then holds Eutaxy's runtime and the generated entry only, importing the
 * patch module (its own module, so it still evaluates before the Worker's) and the Worker's entry.
 */

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { SourceMap, builtinModules, createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { openBundleCache } from "./bundle_cache.mjs";
import { UserError, importTool, toolchain } from "./toolchain.mjs";

const esbuild = toolchain.esbuild;

/** The runtime's folder, where the modules bundled with the Worker live. */
const RUNTIME_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
/** The bundle's named export the host opens a direct socket to. */
export const CONTROL_EXPORT = "__EutaxyControl";

/**
 * The esbuild options wrangler builds a Worker with (its bundle.ts: no platform given, so
 * esbuild's `browser`, whose main fields are browser, module, main).
 * @type {import("esbuild").BuildOptions}
 */
const WRANGLER_OPTIONS = {
  platform: "browser",
  conditions: ["workerd", "worker", "browser"],
  target: "es2022",
  loader: { ".js": "jsx", ".mjs": "jsx", ".cjs": "jsx" },
  keepNames: true,
};

/** The module types an import can be bundled as instead of JavaScript, and the folder beside the bundle each goes to. */
export const MODULE_TYPE_DIRS = { Text: "modules-text", Data: "modules-data", CompiledWasm: "modules-wasm" };

/**
 * Miniflare's module rules for the modules a bundle imports (modulesRules): each type's folder
 * beside the bundle. A callee bundled alone (`bundleAlone`) is loaded so; the loaded Worker's
 * bundle is given as its module list (`bundle`).
 * @returns {{type: string, include: string[]}[]}
 */
export function miniflareModuleRules() {
  return Object.entries(MODULE_TYPE_DIRS).map(([type, dir]) => ({ type, include: [`**/${dir}/*`] }));
}

/**
 * A wrangler rule glob as a regular expression over an import specifier (globstar: `**` any
 * folders, `*` and `?` within one name).
 * @param {string} glob
 */
function globRegExp(glob) {
  let out = "";
  for (let at = 0; at < glob.length; at++) {
    const char = glob[at];
    if (char === "*" && glob[at + 1] === "*") {
      at++;
      if (glob[at + 1] === "/") {
        at++;
        out += "(?:[^/]*(?:/|$))*";
      } else {
        out += ".*";
      }
    } else if (char === "*") {
      out += "[^/]*";
    } else if (char === "?") {
      // wrangler's globs name `.wasm?module` literally: a `?` stays a `?`.
      out += "\\?";
    } else {
      out += char.replace(/[.+^${}()|[\]\\\/-]/g, "\\$&");
    }
  }
  return new RegExp(`^${out}$`);
}

/**
 * The plugin that leaves an import the module rules match out of the bundle: the file is
 * written beside the bundle under its type's folder, named by its content's hash and its
 * name (as wrangler names the modules it uploads), and the import points at it.
 * @param {{type: string, globs: string[]}[]} rules in order, the first match wins
 * @param {string} outDir @param {BuildRecord} record where the modules written and the files read are noted
 * @returns {import("esbuild").Plugin}
 */
function moduleRulesPlugin(rules, outDir, record) {
  const compiled = rules
    .filter((rule) => rule.type in MODULE_TYPE_DIRS)
    .map((rule) => ({ type: /** @type {keyof typeof MODULE_TYPE_DIRS} */ (rule.type), patterns: rule.globs.map(globRegExp) }));
  return {
    name: "eutaxy-module-rules",
    setup(build) {
      if (compiled.length === 0) return;
      build.onResolve({ filter: /.*/ }, async (args) => {
        // A resolve the core plugin asks for is of a path no rule matched (this plugin runs first).
        if (args.pluginData?.eutaxyRules || args.pluginData?.eutaxyCore || args.kind === "entry-point") return undefined;
        // Eutaxy's runtime and the generated entry import JavaScript only.
        if (args.importer === "<stdin>" || args.importer.startsWith(RUNTIME_DIR + path.sep)) return undefined;
        const rule = compiled.find(({ patterns }) => patterns.some((pattern) => pattern.test(args.path)));
        if (!rule) return undefined;
        const specifier = args.path.replace(/\?module$/, "");
        const resolved = await build.resolve(specifier, {
          kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, namespace: "file", pluginData: { eutaxyRules: true },
        });
        if (resolved.errors.length) return { errors: resolved.errors };
        const contents = readFileSync(resolved.path);
        const name = `${createHash("sha1").update(contents).digest("hex")}-${path.basename(resolved.path)}`;
        const dir = path.join(outDir, MODULE_TYPE_DIRS[rule.type]);
        mkdirSync(dir, { recursive: true });
        writeFileSync(path.join(dir, name), contents);
        record.inputs.push(resolved.path);
        record.modules.set(`${MODULE_TYPE_DIRS[rule.type]}/${name}`, rule.type);
        return { path: `./${MODULE_TYPE_DIRS[rule.type]}/${name}`, external: true };
      });
    },
  };
}

/** The folder beside the bundle a no_bundle Worker's modules are copied to, under their names. */
export const UNBUNDLED_DIR = "worker";
/** The patch module's name beside the bundle when the Worker is not bundled (it must evaluate first). */
const PATCH_MODULE = "eutaxy-patch.mjs";

/**
 * A no_bundle Worker's modules as wrangler finds them (its find-additional-modules): the entry,
 * then every file under `baseDir` (by name, in sorted order) that a module rule matches, typed by
 * the first rule that does; a `.wrangler` folder and a wrangler config in `baseDir` are skipped.
 * @param {string} entry @param {string} baseDir
 * @param {{type: string, globs: string[]}[]} rules in order, the first match wins
 * @returns {{name: string, type: string, file: string}[]}
 */
export function unbundledModules(entry, baseDir, rules) {
  const compiled = rules.map((rule) => ({ type: rule.type, patterns: rule.globs.map(globRegExp) }));
  const entryName = path.relative(baseDir, entry).split(path.sep).join("/");
  const modules = [{ name: entryName, type: "ESModule", file: entry }];
  /** @param {string} dir */
  const walk = (dir) => {
    for (const item of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const file = path.join(dir, item.name);
      const name = path.relative(baseDir, file).split(path.sep).join("/");
      if (item.isDirectory()) {
        if (item.name !== ".wrangler") walk(file);
        continue;
      }
      if (name === entryName || ["wrangler.json", "wrangler.jsonc", "wrangler.toml"].includes(name)) continue;
      const rule = compiled.find(({ patterns }) => patterns.some((pattern) => pattern.test(name)));
      if (rule) modules.push({ name, type: rule.type, file });
    }
  };
  walk(baseDir);
  return modules;
}

/**
 * Copy a no_bundle Worker's modules beside the bundle (UNBUNDLED_DIR) and the patch module too
 * (PATCH_MODULE); the Miniflare module list, the bundle first (its main module).
 * A module importing `cloudflare:sockets` is refused: Eutaxy traps it only inside a bundle.
 * @param {{name: string, type: string, file: string}[]} modules @param {string} outFile
 * @returns {{type: string, path: string}[]}
 */
function copyUnbundled(modules, outFile) {
  const outDir = path.dirname(outFile);
  const list = [{ type: "ESModule", path: outFile }, { type: "ESModule", path: path.join(outDir, PATCH_MODULE) }];
  writeFileSync(path.join(outDir, PATCH_MODULE), readFileSync(path.join(RUNTIME_DIR, "patch.mjs")));
  for (const module of modules) {
    const contents = readFileSync(module.file);
    if ((module.type === "ESModule" || module.type === "CommonJS") && contents.includes("cloudflare:sockets")) {
      throw new UserError(
        `${module.file} imports cloudflare:sockets, which Eutaxy records only in a Worker it bundles; this Worker's config sets no_bundle (a build's generated config does), so its modules are loaded as they are`,
      );
    }
    const target = path.join(outDir, UNBUNDLED_DIR, ...module.name.split("/"));
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, contents);
    list.push({ type: module.type, path: target });
  }
  return list;
}

/**
 * The plugin that leaves the patch module and the Worker's entry out of the bundle when the Worker
 * is not bundled: the patch module is imported as PATCH_MODULE, the entry under UNBUNDLED_DIR.
 * @param {string} entryName @returns {import("esbuild").Plugin}
 */
function unbundledPlugin(entryName) {
  const patch = path.join(RUNTIME_DIR, "patch.mjs");
  const entry = `./${UNBUNDLED_DIR}/${entryName}`;
  return {
    name: "eutaxy-unbundled",
    setup(build) {
      build.onResolve({ filter: /patch\.mjs$/ }, (args) =>
        path.resolve(args.resolveDir, args.path) === patch ? { path: `./${PATCH_MODULE}`, external: true } : undefined,
      );
      build.onResolve({ filter: /.*/ }, (args) => (args.path === entry ? { path: entry, external: true } : undefined));
    },
  };
}

/** The packages Eutaxy pins in its toolchain for a Worker that imports them without installing them (the Agents SDK). */
export const PINNED_FOR_WORKERS = ["agents"];

/**
 * The plugin that resolves an import of a package Eutaxy pins (PINNED_FOR_WORKERS) from the
 * toolchain's node_modules when the importer has no copy of its own above it: the Worker's own
 * copy wins, as Node resolution finds it first; the pinned one's own imports resolve beside it.
 * @param {string} nodeModules the toolchain's @returns {import("esbuild").Plugin}
 */
function pinnedPackagesPlugin(nodeModules) {
  const filter = new RegExp(`^(?:${PINNED_FOR_WORKERS.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join("|")})(?:/|$)`);
  return {
    name: "eutaxy-pinned-packages",
    setup(build) {
      build.onResolve({ filter }, async (args) => {
        if (args.pluginData?.eutaxyPinned) return undefined;
        const name = /** @type {string} */ (packageName(args.path));
        if (args.resolveDir && installedAbove(name, args.resolveDir)) return undefined;
        return build.resolve(args.path, { kind: args.kind, resolveDir: nodeModules, pluginData: { eutaxyPinned: true } });
      });
    },
  };
}

/** The prefix of the modules the generated entry imports to set wrangler's Node.js globals (nodeCompatPlugin). */
const NODE_GLOBALS = "eutaxy-node-globals:";

/**
 * @typedef {{alias: Record<string, string>, inject: Record<string, string | string[]>, external: string[],
 *   polyfill: string[], builtins: string[]}} NodeCompatEnv
 */

/**
 * wrangler's Node.js compatibility for the date and flags in force when it is v2 (the
 * nodejs_compat flag from 2024-09-23, or nodejs_compat_v2; Miniflare's getNodeCompat decides, as
 * wrangler asks it): the environment the pinned `unenv` defines with `@cloudflare/unenv-preset`
 * for them, asked as wrangler asks (npm shims on, `debug` left to the Worker's own package).
 * `alias` maps a Node.js module (bare or `node:`) or an npm package to what it becomes,
 * workerd's own module (`external` lists those) or a polyfill; `inject` names the globals set
 * from a module's export (`process`); `polyfill` the modules evaluated for their effect
 * (`performance`); `builtins` the bare built-in names. Null under any other mode.
 * @param {string | undefined} compatibilityDate @param {string[] | undefined} compatibilityFlags
 * @returns {Promise<NodeCompatEnv | null>}
 */
async function nodeCompatEnv(compatibilityDate, compatibilityFlags) {
  const mode = compatibilityDate === undefined ? null : toolchain.miniflare.getNodeCompat(compatibilityDate, compatibilityFlags ?? []).mode;
  if (mode !== "v2") return null;
  const { defineEnv } = await importTool("unenv");
  const { getCloudflarePreset, nonPrefixedNodeModules } = await importTool("@cloudflare/unenv-preset");
  const { env } = defineEnv({
    presets: [getCloudflarePreset({ compatibilityDate, compatibilityFlags: compatibilityFlags ?? [] }), { alias: { debug: "debug" } }],
    npmShims: true,
  });
  return { alias: env.alias, inject: env.inject, external: env.external, polyfill: env.polyfill, builtins: nonPrefixedNodeModules };
}

/**
 * The imports the generated entry makes, after the patch module and before the Worker's, for
 * wrangler's Node.js globals, in wrangler's order: one module per module a global comes from
 * (it sets `globalThis.<name>`), then each polyfill module (resolved in the toolchain).
 * @param {NodeCompatEnv | null} env @returns {string[]}
 */
function nodeGlobalsImports(env) {
  if (!env) return [];
  const modules = [...new Set(Object.values(env.inject).map((from) => (Array.isArray(from) ? from[0] : from)))];
  const requireTool = createRequire(path.join(toolchain.nodeModules, "eutaxy-host.js"));
  return [
    ...modules.map((_, index) => `import ${JSON.stringify(NODE_GLOBALS + index)};`),
    ...env.polyfill.map((module) => `import ${JSON.stringify(requireTool.resolve(module))};`),
  ];
}

/**
 * The plugin that builds a Worker's Node.js imports as wrangler's nodejs_compat (v2) build does
 * (its hybrid plugin), from the environment nodeCompatEnv gives:
 * - an import the environment aliases goes where the alias points: workerd's own module (left to
 *   workerd, under the alias's name) or a polyfill resolved in the toolchain's node_modules and
 *   bundled; an alias to itself that is not workerd's (`debug`) resolves as any import does;
 * - a `require()` of a built-in is an import of it whose default export is what `require`
 *   returns (a bundle cannot require a module left to workerd); a `require()` of an npm shim
 *   or mock gets the shim's named exports on its default export;
 * - the modules nodeGlobalsImports names set the injected globals (`globalThis.process`).
 * @param {NodeCompatEnv} env @returns {import("esbuild").Plugin}
 */
function nodeCompatPlugin(env) {
  const requireTool = createRequire(path.join(toolchain.nodeModules, "eutaxy-host.js"));
  const builtin = new RegExp(`^(?:${env.builtins.map(escapeRegExp).join("|")}|node:.+)$`);
  const aliased = new RegExp(`^(?:${Object.keys(env.alias).map(escapeRegExp).join("|")})$`);
  /** @type {Map<string, {exported: string, global: string}[]>} module -> the globals set from its exports */
  const globals = new Map();
  for (const [global, from] of Object.entries(env.inject)) {
    const [module, exported] = Array.isArray(from) ? from : [from, "default"];
    globals.set(module, [...(globals.get(module) ?? []), { exported, global }]);
  }
  const globalModules = [...globals];
  return {
    name: "eutaxy-node-compat",
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${escapeRegExp(NODE_GLOBALS)}\\d+$`) }, (args) => ({ path: args.path, namespace: "eutaxy-node-globals" }));
      build.onLoad({ filter: /.*/, namespace: "eutaxy-node-globals" }, (args) => {
        const [module, names] = globalModules[Number(args.path.slice(NODE_GLOBALS.length))];
        const imported = names.map(({ exported }, index) => `${exported === "default" ? "default" : JSON.stringify(exported)} as value${index}`);
        const lines = [`import { ${imported.join(", ")} } from ${JSON.stringify(module)};`, ...names.map(({ global }, index) => `globalThis.${global} = value${index};`)];
        return { contents: lines.join("\n"), resolveDir: toolchain.nodeModules, loader: "js" };
      });
      // A require() of a built-in first (then the import it becomes goes through the aliases).
      build.onResolve({ filter: builtin }, (args) => (args.kind === "require-call" ? { path: args.path, namespace: "eutaxy-node-require" } : undefined));
      build.onLoad({ filter: /.*/, namespace: "eutaxy-node-require" }, (args) => ({
        contents: `import value from ${JSON.stringify(args.path)};\nmodule.exports = value;`, resolveDir: toolchain.nodeModules, loader: "js",
      }));
      build.onResolve({ filter: aliased }, (args) => {
        const target = env.alias[args.path];
        if (args.kind === "require-call" && (target.startsWith("unenv/npm/") || target.startsWith("unenv/mock/"))) {
          return { path: args.path, namespace: "eutaxy-node-shim" };
        }
        if (env.external.includes(target)) return { path: target, external: true };
        if (target === args.path) return undefined;
        try {
          return { path: requireTool.resolve(target) };
        } catch {
          // A target the toolchain does not hold: the import resolves as it would without the alias.
          return undefined;
        }
      });
      build.onLoad({ filter: /.*/, namespace: "eutaxy-node-shim" }, (args) => ({
        contents: [
          `import * as shim from ${JSON.stringify(args.path)};`,
          `const value = "default" in shim ? shim.default : {};`,
          `for (const [key, item] of Object.entries(shim)) if (key !== "default") Object.defineProperty(value, key, { value: item, enumerable: true });`,
          `module.exports = value;`,
        ].join("\n"),
        resolveDir: toolchain.nodeModules, loader: "js",
      }));
    },
  };
}

/**
 * The Node built-ins left to workerd: `node:*` always (workerd loads them, or says which it
 * lacks); the bare names too under nodejs_compat v2 (Miniflare's getNodeCompat decides the mode
 * from the date and flags, as wrangler asks it).
 * @param {string | undefined} compatibilityDate @param {string[] | undefined} compatibilityFlags
 */
function nodeExternals(compatibilityDate, compatibilityFlags) {
  const mode = compatibilityDate === undefined ? null : toolchain.miniflare.getNodeCompat(compatibilityDate, compatibilityFlags ?? []).mode;
  if (mode !== "v2") return ["node:*"];
  const bare = builtinModules.filter((name) => !name.startsWith("_") && !name.startsWith("node:"));
  return ["node:*", ...bare];
}

/**
 * The names a spec module exports, read from esbuild's metafile of a throwaway build (whose
 * inputs are noted in `record`).
 * @param {string} file @param {string} workDir @param {BuildRecord} record @returns {Promise<string[]>}
 */
async function exportNames(file, workDir, record) {
  try {
    const built = await esbuild.build({
      ...WRANGLER_OPTIONS, entryPoints: [file], bundle: true, write: false, metafile: true, format: "esm",
      outdir: workDir, external: ["cloudflare:*", "node:*"], logLevel: "silent",
    });
    record.inputs.push(...metafileInputs(built.metafile));
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
 * @param {string[]} specs absolute paths @param {string} workDir @param {BuildRecord} record
 * @returns {Promise<import("esbuild").Plugin>}
 */
async function corePlugin(specs, workDir, record) {
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
    names.set(real, await exportNames(real, workDir, record));
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
        if (args.pluginData?.eutaxyCore || args.pluginData?.eutaxyRules || args.kind === "entry-point") return undefined;
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
 * A callee Worker as the bundle imports it: the binding its caller reaches it by, its entry, its
 * env view (its own names -> the isolate's) and its classes the isolate runs (alias -> its export).
 * @typedef {{binding: string, entry: string, env?: Record<string, string>, classes?: Record<string, string>}} CalleeBuild
 */

/** The prefix of the generated entry's wrapped Durable Object classes (a missing one's warning names its line). */
const WRAPPED = "eutaxyObjectClass";

/**
 * The generated entry's line exporting one Durable Object class wrapped (objects.mjs): the
 * Worker's own under its name, or a callee's, under its alias (`inventory.Counter`, a string
 * export name), from that callee's module and seeing that callee's env.
 * @param {string} name as the kinds' bindings name the class @param {number} index @param {CalleeBuild[]} callees
 */
function wrappedClass(name, index, callees) {
  const at = callees.findIndex((callee) => Object.hasOwn(callee.classes ?? {}, name));
  const exported = at < 0 ? name : /** @type {Record<string, string>} */ (callees[at].classes)[name];
  const module = at < 0 ? "userModule" : `calleeModule${at}`;
  const env = at < 0 ? "" : `, ${JSON.stringify(callees[at].env ?? {})}`;
  return `const ${WRAPPED}${index} = wrapDurableObject(${module}[${JSON.stringify(exported)}], ${JSON.stringify(name)}${env}); export { ${WRAPPED}${index} as ${JSON.stringify(name)} };`;
}

/**
 * Bundle the user's entry with the runtime: the patch module first, so it captures the real
 * globals before the Worker's module evaluates; `cloudflare:sockets` in user code resolves to
 * the runtime's trap; imports of a spec module from outside it go through its recording
 * wrapper (corePlugin).
 * Each Durable Object class the config binds is exported wrapped (objects.mjs), under its name
 * (wrappedClass; a callee's under its alias, from the callee's module, seeing the callee's env).
 * The config's `define`, `alias` and `tsconfig` go to esbuild as wrangler gives them to it;
 * `rules` are the module rules in force (moduleRulesPlugin).
 * Each binding kind's runtime record defined outside runtime/bindings/ (`kindModules`, from
 * the load message) is imported and registered (bindings/index.mjs `registerRecord`) before
 * the control is made: its module exports it as `record`.
 * Each callee Worker's entry (`callees`, bindings/callee.mjs) is imported too, its module handed
 * to the control by the binding its caller reaches it by.
 * With `noBundle` the Worker's modules are not bundled (unbundledModules).
 * The answer's `modules` is the Miniflare module list, the bundle first: with `noBundle` the
 * Worker's modules, else the modules the module rules wrote beside the bundle (given the list,
 * Miniflare does not parse the bundle to find them: a tenth of a second of a check's start);
 * `cached` says the bundle came from the cache.
 * With a bundle cache (bundle_cache.mjs) an unchanged Worker's bundle is copied from the cache
 * instead of built; `root` (the Worker's project folder) tells the cache which folders to list.
 * @param {string} entry @param {string} outFile @param {string[]} [specs] @param {string[]} [objectClasses]
 * @param {{define?: Record<string, string>, alias?: Record<string, string>, kindModules?: string[],
 *   rules?: {type: string, globs: string[]}[], tsconfig?: string | null, compatibilityDate?: string, compatibilityFlags?: string[],
 *   noBundle?: {baseDir: string, rules: {type: string, globs: string[]}[]} | null, callees?: CalleeBuild[],
 *   root?: string}} [options]
 * @returns {Promise<{modules: {type: string, path: string}[], cached: boolean}>}
 */
export async function bundle(entry, outFile, specs = [], objectClasses = [], options = {}) {
  const outDir = path.dirname(outFile);
  // A host loads one Worker after another into one folder: what the last load wrote goes first.
  for (const name of [path.basename(outFile), `${path.basename(outFile)}.map`, PATCH_MODULE, UNBUNDLED_DIR, ...Object.values(MODULE_TYPE_DIRS)]) {
    rmSync(path.join(outDir, name), { recursive: true, force: true });
  }
  const runtime = (/** @type {string} */ name) => JSON.stringify(path.join(RUNTIME_DIR, name));
  const unbundled = options.noBundle ? unbundledModules(entry, options.noBundle.baseDir, options.noBundle.rules) : null;
  if (unbundled && specs.length) throw new UserError("specs modules are recorded by wrapping them in the bundle; a no_bundle Worker is not bundled");
  const moduleList = unbundled ? copyUnbundled(unbundled, outFile) : null;
  const external = ["cloudflare:*", ...nodeExternals(options.compatibilityDate, options.compatibilityFlags)];
  const root = options.root ?? path.dirname(entry);
  // The recipe holds what decides the build; the Node.js compatibility environment follows from the
  // date, the flags and the toolchain, so it is made (importing unenv) only when the build runs.
  const cache = openBundleCache({
    entry, root, specs, objectClasses, external, unbundled: unbundled?.[0].name ?? null, kindModules: options.kindModules ?? [],
    callees: options.callees ?? [],
    define: options.define ?? {}, alias: options.alias ?? {}, rules: options.rules ?? [], tsconfig: options.tsconfig ?? null,
    compatibilityDate: options.compatibilityDate ?? null, compatibilityFlags: options.compatibilityFlags ?? [],
    // esbuild's version, the working folder its metafile and comments are relative to, and the folder
    // the bundle is written under (its source map's paths are relative to it).
    esbuild: esbuild.version, cwd: process.cwd(), outBase: path.dirname(outDir), outName: path.basename(outFile),
    runtimeDir: RUNTIME_DIR, wrangler: WRANGLER_OPTIONS,
  }, { root, skip: toolchain.nodeModules });
  const moduleListOf = (/** @type {string[]} */ outputs, /** @type {Map<string, string>} */ types) =>
    moduleList ?? [{ type: "ESModule", path: outFile }, ...outputs.filter((name) => types.has(name)).map((name) => ({ type: /** @type {string} */ (types.get(name)), path: path.join(outDir, name) }))];
  const restored = cache?.restore(outDir);
  if (restored) return { modules: moduleListOf(restored.outputs, new Map(Object.entries(restored.modules))), cached: true };
  // A Worker wrangler would not bundle gets none of its build's Node.js compatibility either.
  const nodeEnv = unbundled ? null : await nodeCompatEnv(options.compatibilityDate, options.compatibilityFlags);
  const contents = [
    `import ${runtime("patch.mjs")};`,
    ...nodeGlobalsImports(nodeEnv),
    `import * as userModule from ${JSON.stringify(unbundled ? `./${UNBUNDLED_DIR}/${unbundled[0].name}` : entry)};`,
    `import { createControl } from ${runtime("entry.mjs")};`,
    ...(options.callees ?? []).map((callee, index) => `import * as calleeModule${index} from ${JSON.stringify(callee.entry)};`),
    ...(options.kindModules?.length ? [`import { registerRecord } from ${runtime("bindings/index.mjs")};`] : []),
    ...(options.kindModules ?? []).map((file, index) => `import { record as kindRecord${index} } from ${JSON.stringify(file)};`),
    ...(options.kindModules ?? []).map((_, index) => `registerRecord(kindRecord${index});`),
    // A Worker without a default export still starts, so the runtime can say so in its terms.
    `export default userModule.default ?? {};`,
    `export const ${CONTROL_EXPORT} = createControl(userModule, {${(options.callees ?? []).map((callee, index) => `${JSON.stringify(callee.binding)}: calleeModule${index}`).join(", ")}});`,
    ...(objectClasses.length ? [`import { wrapDurableObject } from ${runtime("objects.mjs")};`] : []),
    ...objectClasses.map((name, index) => wrappedClass(name, index, options.callees ?? [])),
  ].join("\n");
  /** @type {import("esbuild").Plugin} */
  const sockets = {
    name: "eutaxy-sockets",
    setup(build) {
      build.onResolve({ filter: /^cloudflare:sockets$/ }, () => ({ path: path.join(RUNTIME_DIR, "sockets.mjs") }));
    },
  };
  /** @type {BuildRecord} */
  const record = { inputs: [], modules: new Map() };
  const rules = moduleRulesPlugin(options.rules ?? [], outDir, record);
  const pinned = pinnedPackagesPlugin(toolchain.nodeModules);
  const node = nodeEnv ? [nodeCompatPlugin(nodeEnv)] : [];
  const plugins = unbundled
    ? [unbundledPlugin(unbundled[0].name)]
    : specs.length ? [sockets, ...node, rules, pinned, await corePlugin(specs, outDir, record)] : [sockets, ...node, rules, pinned];
  /** @type {import("esbuild").BuildResult} */
  let built;
  try {
    built = await esbuild.build({
      ...WRANGLER_OPTIONS,
      stdin: { contents, resolveDir: RUNTIME_DIR, sourcefile: "eutaxy-entry.mjs", loader: "js" },
      bundle: true, format: "esm", outfile: outFile,
      // The map stays beside the bundle, unnamed in it: the host alone reads it (StackMapper), for
      // positions only, so without the sources' text (a third of its size, read at every start).
      sourcemap: "external", sourcesContent: false,
      external, plugins,
      define: options.define ?? {}, alias: options.alias ?? {},
      ...(options.tsconfig ? { tsconfig: options.tsconfig } : {}),
      logLevel: "silent", legalComments: "none", metafile: true,
    });
  } catch (error) {
    const errors = /** @type {any} */ (error).errors ?? [];
    // A location in the generated entry is the import of the user's entry: say only what failed.
    // esbuild's locations are relative to the host's directory: absolute, so Python can show them from the user's.
    const where = (/** @type {any} */ at) => (at && !at.file.endsWith("eutaxy-entry.mjs") ? `${path.resolve(at.file)}:${at.line}:${at.column}: ` : "");
    const missing = unresolvedPackages(errors, entry, options.compatibilityDate, options.compatibilityFlags);
    if (missing) throw new UserError(missing);
    const lines = errors.map((/** @type {any} */ e) => `${where(e.location)}${e.text}`);
    throw new UserError(`the Worker does not bundle: ${lines.join("; ") || String(error)}`);
  }
  // A class the config binds that the entry does not export: esbuild knows it from the entry's
  // exports (an entry whose exports it cannot see statically is left to the wrapper's refusal
  // when the bundle loads). The Python side names the config line that binds it.
  const missing = objectClasses.filter((name, index) => built.warnings.some((warning) => warning.id === "import-is-undefined" && warning.location?.lineText.startsWith(`const ${WRAPPED}${index} `)));
  if (missing.length > 0) {
    const error = new UserError(`the Worker's entry does not export the Durable Object class${missing.length > 1 ? "es" : ""} ${missing.join(", ")} its config binds`);
    error.missingClasses = missing;
    throw error;
  }
  const outputs = [path.basename(outFile), `${path.basename(outFile)}.map`, ...[...record.modules.keys()].sort()];
  const inputs = [...record.inputs, ...metafileInputs(built.metafile), ...(options.tsconfig ? [path.resolve(options.tsconfig)] : [])];
  cache?.store(outDir, { outputs, modules: Object.fromEntries(record.modules) }, inputs);
  return { modules: moduleListOf(outputs, record.modules), cached: false };
}

/**
 * What a build notes as it goes, for the bundle cache and the module list: the files its
 * plugins read beyond esbuild's own inputs, and the modules the module rules wrote beside the
 * bundle (their names relative to it, and their types).
 * @typedef {{inputs: string[], modules: Map<string, string>}} BuildRecord
 */

/**
 * The files a build loaded, absolute (esbuild's metafile names them relative to the working
 * folder); inputs of a plugin's own namespace (`eutaxy-core:`, the generated entry) are not files.
 * @param {import("esbuild").Metafile | undefined} metafile @returns {string[]}
 */
function metafileInputs(metafile) {
  return Object.keys(metafile?.inputs ?? {}).filter((name) => !/^[a-z][a-z0-9-]*:/i.test(name) && name !== "<stdin>").map((name) => path.resolve(name));
}

/**
 * A callee Worker's entry bundled alone, as wrangler would bundle it, with none of Eutaxy's
 * runtime: the Worker the differential runner's raw side reaches through a real service
 * binding (host/miniflare.mjs), which no proxy touches.
 * @param {string} entry @param {string} outFile
 * @param {{compatibilityDate?: string, compatibilityFlags?: string[]}} [options]
 */
export async function bundleAlone(entry, outFile, options = {}) {
  try {
    await esbuild.build({
      ...WRANGLER_OPTIONS,
      entryPoints: [entry], bundle: true, format: "esm", outfile: outFile,
      external: ["cloudflare:*", ...nodeExternals(options.compatibilityDate, options.compatibilityFlags)],
      plugins: [moduleRulesPlugin([], path.dirname(outFile), { inputs: [], modules: new Map() }), pinnedPackagesPlugin(toolchain.nodeModules)],
      logLevel: "silent", legalComments: "none",
    });
  } catch (error) {
    const errors = /** @type {any} */ (error).errors ?? [];
    throw new UserError(`the callee ${entry} does not bundle: ${errors.map((/** @type {any} */ e) => e.text).join("; ") || String(error)}`);
  }
}

/** The package a bare specifier names (`@scope/name` or `name`), or null for a path or a scheme. @param {string} specifier */
function packageName(specifier) {
  if (specifier.startsWith(".") || specifier.startsWith("/") || /^[a-z][a-z0-9+.-]*:/i.test(specifier)) return null;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/** Whether `name` is installed in a node_modules folder above `dir`, as Node resolution looks. @param {string} name @param {string} dir */
function installedAbove(name, dir) {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    if (existsSync(path.join(at, "node_modules", name, "package.json"))) return true;
    if (path.dirname(at) === at) return false;
  }
}

/** The folder `npm install` is run in for the Worker: the nearest holding a package.json, from the entry up. @param {string} entry */
function packageDir(entry) {
  for (let at = path.dirname(path.resolve(entry)); ; at = path.dirname(at)) {
    if (existsSync(path.join(at, "package.json"))) return at;
    if (path.dirname(at) === at) return path.dirname(path.resolve(entry));
  }
}

/**
 * The message for a build that failed on imports of packages that are not installed (no
 * node_modules, or one without them) or of Node built-ins without nodejs_compat, with the
 * first import site (file:line, absolute) of each; null when some error is of another kind
 * or none is of these.
 * @param {any[]} errors esbuild's @param {string} entry
 * @param {string | undefined} compatibilityDate @param {string[] | undefined} compatibilityFlags
 * @returns {string | null}
 */
function unresolvedPackages(errors, entry, compatibilityDate, compatibilityFlags) {
  /** @type {Map<string, string>} package -> its first import site */
  const packages = new Map();
  /** @type {Map<string, string>} built-in -> its first import site */
  const builtins = new Map();
  const sites = errors
    .map((/** @type {any} */ e) => ({ specifier: /^Could not resolve "([^"]+)"$/.exec(e.text)?.[1], at: e.location }))
    .filter((/** @type {any} */ one) => one.specifier && one.at)
    .map((/** @type {any} */ one) => ({ ...one, file: path.resolve(one.at.file) }))
    .sort((/** @type {any} */ a, /** @type {any} */ b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.at.line - b.at.line || a.at.column - b.at.column));
  for (const { specifier, at, file } of sites) {
    const name = packageName(specifier);
    if (name === null) return null;
    const site = `${file}:${at.line}`;
    if (builtinModules.includes(specifier) || builtinModules.includes(name)) {
      if (!builtins.has(specifier)) builtins.set(specifier, site);
    } else if (installedAbove(name, path.dirname(file))) {
      // Installed, yet not resolved (an export its package.json does not offer): esbuild's message says why.
      return null;
    } else if (!packages.has(name)) {
      packages.set(name, site);
    }
  }
  if (sites.length === 0 || sites.length < errors.length) return null;
  const listed = (/** @type {Map<string, string>} */ map) => [...map].map(([name, site]) => `${name} (${site})`).join(", ");
  const parts = [];
  if (packages.size) {
    const dir = packageDir(entry);
    let declared = new Set();
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
      declared = new Set(["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"].flatMap((field) => Object.keys(manifest?.[field] ?? {})));
    } catch {
      // No package.json, or one that does not parse: nothing is declared.
    }
    const undeclared = [...packages.keys()].filter((name) => !declared.has(name));
    parts.push(
      `run \`npm install\` (or your package manager) in ${dir}: these packages are imported but not installed: ${listed(packages)}` +
        (undeclared.length ? `; not in ${path.join(dir, "package.json")}'s dependencies either, so add them first: ${undeclared.join(", ")}` : ""),
    );
  }
  if (builtins.size) {
    const mode = compatibilityDate === undefined ? null : toolchain.miniflare.getNodeCompat(compatibilityDate, compatibilityFlags ?? []).mode;
    const fix = mode === "v1"
      ? 'import them with the "node:" prefix, or set a compatibility_date from 2024-09-23 (nodejs_compat then takes bare names)'
      : 'add "nodejs_compat" to compatibility_flags in the wrangler config (workerd then provides them), as wrangler asks';
    parts.push(`these Node.js built-in modules are imported without Node.js compatibility: ${listed(builtins)}; ${fix}`);
  }
  return parts.join("; and ");
}

/**
 * Stack positions in the bundle, told in the Worker's own terms. Made once per load, from the
 * bundle's source map: a position (`worker.bundle.mjs:LINE:COLUMN`, with or without the work
 * directory before it) becomes the source file relative to the Worker's project folder and
 * its line and column (`src/index.ts:12:5`); a stack line whose position is Eutaxy's own
 * runtime, the generated entry, or nothing the map covers is dropped. Nothing host-specific
 * (the work directory under /dev/shm, a pid, the toolchain's folder) survives: two checks give
 * the same bytes (`shownPath`).
 *
 * A no_bundle Worker's modules are loaded beside the bundle as they are (UNBUNDLED_DIR, named
 * from `baseDir`): a position in one (`worker/index.js:6:80`) is the module's own file, line and
 * column as loaded, or, when the module has its source map beside it (`index.js.map`, as a Vite
 * build writes), the source the map names; the patch module (PATCH_MODULE) is Eutaxy's own.
 */
export class StackMapper {
  /**
   * @param {string} bundleFile @param {string} root the Worker project's folder (its config's)
   * @param {string | null} [baseDir] a no_bundle Worker's base folder (its modules' names are relative to it), else null
   */
  constructor(bundleFile, root, baseDir = null) {
    this.bundleFile = bundleFile;
    this.root = root;
    this.baseDir = baseDir;
    this.workDir = path.dirname(bundleFile);
    /** @type {SourceMap | null | undefined} the bundle's map, read on first use (`map`) */
    this.readMap = undefined;
    const name = path.basename(bundleFile).replace(/[.]/g, "[.]");
    this.position = new RegExp(`(?:file://)?(?:[^\\s()]*/)?${name}:(\\d+):(\\d+)`, "g");
    this.frame = new RegExp(`^\\s*at\\s.*${name}:\\d+:\\d+\\)?\\s*$`);
    // A position in a module loaded beside the bundle: its name from UNBUNDLED_DIR on, with the
    // work directory (and file://) before it or not.
    const dir = `(?:file://)?(?:${escapeRegExp(this.workDir)}/)?`;
    this.modulePosition = new RegExp(`(?<![\\w.@/-])${dir}(${UNBUNDLED_DIR}/[^\\s():]+):(\\d+):(\\d+)`, "g");
    this.moduleFrame = new RegExp(`^\\s*at\\s.*(?<![\\w.@/-])${dir}(?:${UNBUNDLED_DIR}/[^\\s():]+|${PATCH_MODULE.replace(/[.]/g, "[.]")}):\\d+:\\d+\\)?\\s*$`);
    /** @type {Map<string, SourceMap | null>} a no_bundle module's file -> the source map beside it (null: none) */
    this.moduleMaps = new Map();
    /** @type {Map<string, {file: string, line: number, column: number} | null>} call site (call_site.mjs) -> its source; a Worker has few */
    this.sites = new Map();
  }

  /**
   * The bundle's source map, or null when there is none. Reading it (tens of milliseconds) waits
   * for its first use, or for workerd's start (host.mjs reads it while workerd starts).
   * @returns {SourceMap | null}
   */
  get map() {
    if (this.readMap === undefined) this.readMap = readSourceMap(`${this.bundleFile}.map`);
    return this.readMap;
  }

  /**
   * The source a position came from: `{file, line, column, own}` (`own`: Eutaxy's runtime, the
   * generated entry or a spec module's recording wrapper), or null when nothing covers it or its
   * file has no path that is the same on every machine (`shownPath`). A position without `module`
   * is the bundle's; one with it is in that module as workerd names it (call_site.mjs).
   * @param {number} line @param {number} column @param {string} [module]
   */
  origin(line, column, module) {
    if (module !== undefined) return this.moduleOrigin(module, line, column);
    const map = this.map;
    if (!map) return null;
    // The mapping the position falls in, taken at its own start: the original token's line and
    // column. (findOrigin adds the position's distance from the mapping's start, which counts in
    // the bundle's text, where names and lines differ from the source's.)
    const entry = /** @type {any} */ (map.findEntry(line - 1, column - 1));
    if (!entry || typeof entry.originalSource !== "string" || !entry.originalSource) return null;
    const at = { line: entry.originalLine + 1, column: entry.originalColumn + 1 };
    // A spec module's wrapper is made in a namespace of its own (corePlugin): Eutaxy's code.
    if (entry.originalSource.startsWith("eutaxy-core:")) return { file: entry.originalSource, ...at, own: true };
    const file = path.resolve(this.workDir, entry.originalSource);
    if (isRuntimeFile(file) || file.endsWith("eutaxy-entry.mjs")) return { file: path.basename(file), ...at, own: true };
    const shown = shownPath(file, this.root);
    return shown === null ? null : { file: shown, ...at, own: false };
  }

  /**
   * The source of a position in a module loaded beside the bundle (`module` as workerd or a stack
   * names it): a no_bundle Worker's module is its file under `baseDir`, mapped through the source
   * map beside it when there is one and it covers the position; the patch module is Eutaxy's own;
   * anything else null.
   * @param {string} module @param {number} line @param {number} column
   */
  moduleOrigin(module, line, column) {
    const name = module.replace(/^file:\/\//, "").split(this.workDir + "/").join("").replace(/^\/+/, "");
    if (name === PATCH_MODULE) return { file: name, line, column, own: true };
    if (this.baseDir === null || !name.startsWith(`${UNBUNDLED_DIR}/`)) return null;
    const file = path.join(this.baseDir, ...name.slice(UNBUNDLED_DIR.length + 1).split("/"));
    let map = this.moduleMaps.get(file);
    if (map === undefined) {
      map = readSourceMap(`${file}.map`);
      this.moduleMaps.set(file, map);
    }
    const entry = /** @type {any} */ (map?.findEntry(line - 1, column - 1));
    if (entry && typeof entry.originalSource === "string" && entry.originalSource) {
      const shown = shownPath(path.resolve(path.dirname(file), entry.originalSource.replace(/^file:\/\//, "")), this.root);
      return shown === null ? null : { file: shown, line: entry.originalLine + 1, column: entry.originalColumn + 1, own: false };
    }
    const shown = shownPath(file, this.root);
    return shown === null ? null : { file: shown, line, column, own: false };
  }

  /**
   * The Worker's own frame among stack positions, innermost first: the first that maps to the
   * Worker's source outside node_modules when one does, else the first of a package's; null when
   * none is the Worker's (Eutaxy's runtime only).
   * @param {{line: number, column: number, module?: string}[]} positions
   * @returns {{file: string, line: number, column: number} | null}
   */
  userFrame(positions) {
    /** @type {{file: string, line: number, column: number}[]} */
    const frames = [];
    for (const { line, column, module } of positions) {
      const origin = this.origin(line, column, module);
      if (origin && !origin.own) frames.push({ file: origin.file, line: origin.line, column: origin.column });
    }
    return frames.find((one) => !one.file.split("/").includes("node_modules")) ?? frames[0] ?? null;
  }

  /**
   * The source of an effect's call site (call_site.mjs: `"LINE:COLUMN FILE:LINE:COLUMN"`,
   * innermost first, a module's name URI-encoded), read once per distinct site.
   * @param {string} site @returns {{file: string, line: number, column: number} | null}
   */
  site(site) {
    let source = this.sites.get(site);
    if (source === undefined) {
      const positions = site.split(" ").map((one) => {
        const [, module, line, column] = /** @type {RegExpExecArray} */ (/^(?:(.*):)?(\d+):(\d+)$/.exec(one));
        return { line: Number(line), column: Number(column), ...(module === undefined ? {} : { module: decodeURIComponent(module) }) };
      });
      source = this.userFrame(positions);
      this.sites.set(site, source);
    }
    return source;
  }

  /**
   * The positions of a stack line: a bundle position, or a position in a module loaded beside the bundle.
   * @param {string} line @returns {{line: number, column: number, module?: string} | null}
   */
  framePosition(line) {
    if (this.frame.test(line)) {
      this.position.lastIndex = 0;
      const found = this.position.exec(line);
      return found ? { line: Number(found[1]), column: Number(found[2]) } : null;
    }
    if (this.moduleFrame.test(line)) {
      const found = /(?:file:\/\/)?([^\s()]+):(\d+):(\d+)\)?\s*$/.exec(line);
      return found ? { module: found[1], line: Number(found[2]), column: Number(found[3]) } : null;
    }
    return null;
  }

  /**
   * `text` with every bundle position, and every position in a module loaded beside it, mapped;
   * every stack line of Eutaxy's own dropped. @param {string} text
   */
  text(text) {
    if (!text.includes(path.basename(this.bundleFile)) && !text.includes(this.workDir) && !(this.baseDir !== null && text.includes(`${UNBUNDLED_DIR}/`))) return text;
    const lines = text.split("\n").filter((line) => {
      const at = this.framePosition(line);
      if (at === null) return true;
      const origin = this.origin(at.line, at.column, at.module);
      return origin !== null && !origin.own;
    });
    return lines
      .join("\n")
      .replace(this.position, (whole, line, column) => {
        const origin = this.origin(Number(line), Number(column));
        return origin ? `${origin.file}:${origin.line}:${origin.column}` : path.basename(this.bundleFile);
      })
      .replace(this.modulePosition, (whole, module, line, column) => {
        const origin = this.origin(Number(line), Number(column), module);
        return origin ? `${origin.file}:${origin.line}:${origin.column}` : whole;
      })
      .split(this.workDir + "/").join("");
  }

  /**
   * Where an error was thrown in the Worker's own code: the innermost stack frame that maps to
   * the Worker's source (outside node_modules when one does), as `src/index.ts:12`; null when none.
   * @param {string} stack
   */
  thrownAt(stack) {
    const positions = stack.split("\n").map((line) => this.framePosition(line)).filter((at) => at !== null);
    const frame = this.userFrame(positions);
    return frame ? `${frame.file}:${frame.line}` : null;
  }

  /**
   * A run result's JSON with no host path in it: each effect's call site (`site`) becomes its
   * `source` (left out when no frame is the Worker's), each uncaught error's stack becomes `at`
   * (and is dropped), and every string (console lines, details, payloads) is mapped by `text`.
   * A result that names no site, no bundle position and reports no error is passed on as it came.
   * @param {string} resultText @returns {string}
   */
  runResult(resultText) {
    const paths = resultText.includes(path.basename(this.bundleFile)) || resultText.includes(this.workDir) ||
      (this.baseDir !== null && resultText.includes(`${UNBUNDLED_DIR}/`));
    if (!resultText.includes('"site"') && !resultText.includes('"stack"') && !paths) return resultText;
    const result = JSON.parse(resultText);
    for (const effect of result.effects ?? []) {
      if (typeof effect?.site !== "string") continue;
      const source = this.site(effect.site);
      delete effect.site;
      if (source) effect.source = source;
    }
    for (const invocation of result.invocations ?? []) {
      const error = invocation.error;
      if (!error) continue;
      const at = typeof error.stack === "string" ? this.thrownAt(error.stack) : null;
      delete error.stack;
      if (at) error.at = at;
    }
    if (!paths) return JSON.stringify(result);
    /** @param {unknown} value @returns {unknown} */
    const walk = (value) => {
      if (typeof value === "string") return this.text(value);
      if (Array.isArray(value)) return value.map(walk);
      if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item)]));
      return value;
    };
    return JSON.stringify(walk(result));
  }
}

/** The source map in `file`, or null when there is none or it does not parse. @param {string} file */
function readSourceMap(file) {
  try {
    return new SourceMap(JSON.parse(readFileSync(file, "utf8")));
  } catch {
    return null;
  }
}

/** `text` matched literally in a regular expression. @param {string} text */
function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/**
 * Whether `file` is a module of Eutaxy's runtime, bundled with the Worker; the runtime's test
 * Workers (`fixtures/`, `test/`) live in its folder and are Workers like any other.
 * @param {string} file absolute
 */
function isRuntimeFile(file) {
  if (!file.startsWith(RUNTIME_DIR + path.sep)) return false;
  const top = path.relative(RUNTIME_DIR, file).split(path.sep)[0];
  return top !== "fixtures" && top !== "test";
}

/**
 * A source file's path as every machine shows it: relative to the Worker's project folder
 * (`src/index.ts`, `node_modules/lib/index.js`) when inside it, else from the last
 * `node_modules` folder on (a package the toolchain pins, `node_modules/agents/dist/index.js`),
 * else null (no path without this machine's folders in it).
 * @param {string} file absolute @param {string} root @returns {string | null}
 */
export function shownPath(file, root) {
  const relative = path.relative(root, file);
  if (relative && !relative.startsWith("..") && !path.isAbsolute(relative)) return relative.split(path.sep).join("/");
  const parts = file.split(path.sep);
  const at = parts.lastIndexOf("node_modules");
  return at >= 0 && at < parts.length - 1 ? parts.slice(at).join("/") : null;
}
