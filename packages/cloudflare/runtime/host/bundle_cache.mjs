// @ts-check
/**
 * The bundle cache: a Worker's bundle kept across checks, keyed by the content of everything the
 * build reads, so a check of an unchanged Worker skips esbuild.
 *
 * An entry lives in its own folder under the cache directory (EUTAXY_BUNDLE_CACHE, which the
 * Python side sets: `<cache>/bundles`, see host.py), named by the digest of the recipe: every
 * option the build is given (the Worker's entry, the runtime's folder, the binding kinds' modules,
 * the wrapped Durable Object classes and the spec modules, which the generated entry names;
 * `define`, `alias`, the module rules, the tsconfig's path, the compatibility date and flags,
 * which decide the Node.js compatibility environment too), esbuild's version, the toolchain's
 * folder (named by its lock's digest), the host's own code (host/*.mjs: how the build is made),
 * and the folders the build works from and writes under (the bundle's comments and its source
 * map name sources relative to them). The entry holds the bundle, its source map
 * and the modules the module rules put beside it, and a manifest of what the build read:
 *
 * - the content digest of every file esbuild loaded (its metafile's inputs: the Worker's sources,
 *   their imports in node_modules, Eutaxy's runtime modules), of each spec module (and what its
 *   export names were read from), of each file a module rule copied, and of the tsconfig;
 * - for every folder holding one of those files and every folder above it: the content (or
 *   absence) of its `package.json`, `tsconfig.json` and `jsconfig.json` and the listing of its
 *   `node_modules` (what resolution reads there, and where it looks for a package); and for each
 *   such folder holding a source or inside the Worker's project, the names of its files that an
 *   import without an extension could resolve to (a new `util.tsx` beside an imported `util.ts`
 *   would win). Other files (a regression test written beside the scenario, `__pycache__`) change
 *   nothing the build reads, and are not looked at.
 *
 * Files in the toolchain's folder are left out of the manifest: the recipe names that folder,
 * and its contents are fixed by the lock it is named after.
 *
 * A lookup whose manifest still matches copies the entry's files into the host's work directory,
 * byte for byte what the build wrote, and the build is skipped; anything that differs (or an
 * entry that cannot be read) is a miss, and the build's output replaces the entry. Writing is
 * best effort: an entry is made in a temporary folder and renamed into place, so a reader sees a
 * whole entry or none, and a cache that cannot be written costs the next check a build, never a
 * failure. When a new entry is written, those unused for PRUNE_AFTER_MS go, and all but the
 * ENTRIES_MAX used last.
 */

import { createHash, randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { log } from "./toolchain.mjs";

/** The manifest's format: a new one misses every old entry. */
const FORMAT = 1;
/** An entry no check has used for this long is removed when another is written. */
const PRUNE_AFTER_MS = 14 * 24 * 60 * 60 * 1000;
/** The most entries kept (a test suite's throwaway Workers each make one): about a megabyte each. */
const ENTRIES_MAX = 200;
/** A temporary folder this old was left by a host killed while it wrote an entry. */
const TEMPORARY_STALE_MS = 24 * 60 * 60 * 1000;
/** The files resolution reads in a folder above the sources, and the folder it searches. */
const RESOLUTION_FILES = ["package.json", "tsconfig.json", "jsconfig.json"];
const MANIFEST = "manifest.json";
/** The extensions an import without one resolves to (esbuild's default order, .mjs/.cjs/.mts/.cts too). */
const SOURCE_EXTENSIONS = [".tsx", ".ts", ".jsx", ".js", ".css", ".json", ".mjs", ".cjs", ".mts", ".cts"];

const HOST_DIR = path.dirname(fileURLToPath(import.meta.url));

/** @param {string | Buffer} data */
function digest(data) {
  return createHash("sha256").update(data).digest("hex");
}

/** The digest of the host's own modules: a change to how the build is made misses every entry. */
const HOST_CODE = digest(
  readdirSync(HOST_DIR).filter((name) => name.endsWith(".mjs")).sort()
    .map((name) => `${name}\0${digest(readFileSync(path.join(HOST_DIR, name)))}`).join("\n"),
);

/** A file's content digest, or null when it cannot be read. @param {string} file */
function fileDigest(file) {
  try {
    return digest(readFileSync(file));
  } catch {
    return null;
  }
}

/** A folder's sorted names, or null when it cannot be read. @param {string} dir @param {(name: string) => boolean} [keep] */
function listing(dir, keep = () => true) {
  try {
    return readdirSync(dir).filter(keep).sort().join("\n");
  } catch {
    return null;
  }
}

/**
 * What resolution reads in a folder: its package.json, tsconfig.json and jsconfig.json, its
 * node_modules' names, and with `sources` the files an import could resolve to by adding an extension.
 * @param {string} dir @param {boolean} sources
 */
function probe(dir, sources) {
  const found = RESOLUTION_FILES.map((name) => `${name}:${fileDigest(path.join(dir, name))}`);
  found.push(`node_modules:${listing(path.join(dir, "node_modules"))}`);
  if (sources) found.push(`sources:${listing(dir, (name) => SOURCE_EXTENSIONS.includes(path.extname(name)))}`);
  return found.join("\n");
}

/** Whether `file` is `dir` or inside it. @param {string} file @param {string} dir */
function inside(file, dir) {
  const relative = path.relative(dir, file);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/**
 * What the build read, as the manifest records it: each file's digest, each folder's probe.
 * @param {string[]} files absolute @param {{root: string, skip: string}} where
 * @returns {{files: Record<string, string | null>, folders: Record<string, string | null>, holding: string[]}}
 */
function readInputs(files, where) {
  /** @type {Record<string, string | null>} */
  const digests = {};
  /** @type {Record<string, string | null>} */
  const folders = {};
  const holding = new Set();
  for (const file of [...new Set(files)].sort()) {
    if (inside(file, where.skip)) continue;
    digests[file] = fileDigest(file);
    holding.add(path.dirname(file));
  }
  for (const dir of [...holding].sort()) {
    for (let at = dir; ; at = path.dirname(at)) {
      if (!(at in folders)) folders[at] = probe(at, holding.has(at) || inside(at, where.root));
      if (path.dirname(at) === at) break;
    }
  }
  return { files: digests, folders, holding: [...holding].sort() };
}

/** Whether the manifest's inputs read the same now. @param {any} manifest @param {{root: string}} where */
function stillMatches(manifest, where) {
  const holding = new Set(manifest.holding);
  for (const [file, recorded] of Object.entries(manifest.files)) {
    if (fileDigest(file) !== recorded) return false;
  }
  for (const [dir, recorded] of Object.entries(manifest.folders)) {
    if (probe(dir, holding.has(dir) || inside(dir, where.root)) !== recorded) return false;
  }
  return true;
}

/** @typedef {{outputs: string[], modules: Record<string, string>}} Stored */

/**
 * The cache for one build, or null when there is no cache directory (EUTAXY_BUNDLE_CACHE unset
 * or empty: a host started by hand, the runtime's own tests).
 * @param {object} recipe every option the build is given, as plain data
 * @param {{root: string, skip: string}} where the Worker's project folder; the toolchain's folder (not recorded)
 */
export function openBundleCache(recipe, where) {
  const base = process.env.EUTAXY_BUNDLE_CACHE;
  if (!base) return null;
  const key = digest(JSON.stringify({ format: FORMAT, host: HOST_CODE, recipe }));
  const entry = path.join(base, key.slice(0, 32));
  return {
    key,
    /**
     * Copy the entry's files into `outDir` when its manifest still matches: what was stored
     * (`outputs`, the files' names relative to `outDir`, the bundle first; `modules`, the module
     * rules' modules by name, with their types), else null.
     * @param {string} outDir @returns {Stored | null}
     */
    restore(outDir) {
      /** @type {any} */
      let manifest;
      try {
        manifest = JSON.parse(readFileSync(path.join(entry, MANIFEST), "utf8"));
      } catch {
        return null;
      }
      if (manifest?.key !== key || !stillMatches(manifest, where)) return null;
      try {
        for (const name of manifest.outputs) {
          mkdirSync(path.dirname(path.join(outDir, name)), { recursive: true });
          copyFileSync(path.join(entry, "out", name), path.join(outDir, name));
        }
        const now = new Date();
        utimesSync(entry, now, now);
      } catch (error) {
        log(`bundle cache: ${entry} could not be read (${/** @type {Error} */ (error).message}); building`);
        return null;
      }
      return { outputs: manifest.outputs, modules: manifest.modules };
    },
    /**
     * Keep what the build wrote in `outDir` (`stored.outputs`, relative names) with the manifest
     * of `inputs` (absolute files) it read. Never throws: a cache that cannot be written is logged.
     * @param {string} outDir @param {Stored} stored @param {string[]} inputs
     */
    store(outDir, { outputs, modules }, inputs) {
      const made = path.join(base, `tmp-${process.pid}-${randomBytes(6).toString("hex")}`);
      try {
        mkdirSync(made, { recursive: true });
        const read = readInputs(inputs, where);
        for (const name of outputs) {
          mkdirSync(path.dirname(path.join(made, "out", name)), { recursive: true });
          copyFileSync(path.join(outDir, name), path.join(made, "out", name));
        }
        writeFileSync(path.join(made, MANIFEST), JSON.stringify({ key, outputs, modules, ...read }));
        rmSync(entry, { recursive: true, force: true });
        renameSync(made, entry);
        prune(base, entry);
      } catch (error) {
        log(`bundle cache: ${base} could not be written (${/** @type {Error} */ (error).message}); the next check builds again`);
      } finally {
        rmSync(made, { recursive: true, force: true });
      }
    },
  };
}

/**
 * Remove entries unused for PRUNE_AFTER_MS, all but the ENTRIES_MAX used last, and temporary
 * folders a killed host left. @param {string} base @param {string} keep
 */
function prune(base, keep) {
  const now = Date.now();
  /** @type {{dir: string, used: number}[]} */
  const entries = [];
  for (const name of readdirSync(base)) {
    const dir = path.join(base, name);
    try {
      const used = statSync(dir).mtimeMs;
      if (name.startsWith("tmp-")) {
        if (now - used > TEMPORARY_STALE_MS) rmSync(dir, { recursive: true, force: true });
      } else if (dir !== keep) {
        entries.push({ dir, used });
      }
    } catch {
      // Removed by another host meanwhile.
    }
  }
  entries.sort((a, b) => b.used - a.used);
  entries.forEach(({ dir, used }, index) => {
    if (index + 1 >= ENTRIES_MAX || now - used > PRUNE_AFTER_MS) rmSync(dir, { recursive: true, force: true });
  });
}
