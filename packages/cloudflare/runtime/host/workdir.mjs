// @ts-check
/**
 * The host's work directory, where Miniflare keeps its storage. It keeps non-persisted D1
 * data under $TMPDIR, and every write there is synced: on a disk a run costs 60-90 ms, on
 * a memory file system 6-8 ms (measured here). So the host's own directory goes on
 * /dev/shm when that is a writable directory, else under the TMPDIR it was given; either
 * way it is this host's alone and removed on exit. A host killed outright cannot remove it,
 * and /dev/shm is memory, so a live host touches its directory every HEARTBEAT_MS and each
 * start removes host directories untouched for STALE_MS. (Not by pid: hosts in other pid
 * namespaces share /dev/shm, and their pids mean nothing here.) The directory's name carries
 * the pid and the tag Python gave in EUTAXY_HOST_TAG, so Python removes this host's directory
 * and never that of a host with the same pid in another pid namespace.
 */

import { accessSync, constants, mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** How often a live host marks its work directory as in use. */
const HEARTBEAT_MS = 60_000;
/** A host work directory untouched this long belongs to a host that was killed outright. */
const STALE_MS = 30 * 60_000;
const PREFIX = "eutaxy-host-";

function baseDir() {
  const shm = "/dev/shm";
  try {
    accessSync(shm, constants.W_OK);
    if (statSync(shm).isDirectory()) return shm;
  } catch {
    // No memory file system: stay under TMPDIR.
  }
  return os.tmpdir();
}

/** @param {string} base */
function removeStale(base) {
  const now = Date.now();
  for (const name of readdirSync(base)) {
    if (!name.startsWith(PREFIX)) continue;
    const dir = path.join(base, name);
    try {
      if (now - statSync(dir).mtimeMs > STALE_MS) rmSync(dir, { recursive: true, force: true });
    } catch {
      // Gone already, or not ours to remove.
    }
  }
}

/**
 * Make this host's work directory, point TMPDIR at it (Miniflare's storage follows) and
 * keep it marked live. @returns {{dir: string, remove: () => void}}
 */
export function openWorkDir() {
  const base = baseDir();
  removeStale(base);
  const tag = process.env.EUTAXY_HOST_TAG ? `${process.env.EUTAXY_HOST_TAG}-` : "";
  const dir = mkdtempSync(path.join(base, `${PREFIX}${process.pid}-${tag}`));
  process.env.TMPDIR = dir;
  setInterval(() => {
    const now = new Date();
    try {
      utimesSync(dir, now, now);
    } catch {
      // Removed under us: the next load reports what is missing.
    }
  }, HEARTBEAT_MS).unref();
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
