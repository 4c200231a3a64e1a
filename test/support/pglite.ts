/**
 * In-memory PGlite for tests, started from the files of a fresh cluster instead of by initdb:
 * initdb costs each instance seconds of CPU (about 9 s on a loaded two-core machine, against
 * about 2 s from the files), and the tests start one or more per file. The files are made once
 * per `vitest run` (test/support/global-setup.ts) and kept under the OS's temp directory, named
 * by PGlite's version; without them, an instance runs initdb as before.
 * Rejected: one PGlite per process shared by every test (tests that close or break their
 * database would reach into the next), and a raised timeout (the cost stays, the guess moves).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";

/** PGlite's version, from its package.json (not in its exports: found above its entry point). */
function pgliteVersion(): string {
  let dir = path.dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
  while (!existsSync(path.join(dir, "package.json")) || !readFileSync(path.join(dir, "package.json"), "utf8").includes('"name": "@electric-sql/pglite"')) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error("@electric-sql/pglite's package.json was not found above its entry point");
    dir = up;
  }
  return (JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { version: string }).version;
}

const PGLITE_VERSION = pgliteVersion();
const CLUSTER_FILES = path.join(tmpdir(), `threadline-test-pglite-${PGLITE_VERSION}.tar`);

let cached: Blob | undefined;

/** The fresh cluster's files, or undefined when they were not made (initdb runs then). */
export function freshClusterFiles(): Blob | undefined {
  if (!cached && existsSync(CLUSTER_FILES)) cached = new Blob([readFileSync(CLUSTER_FILES)]);
  return cached;
}

/** A new in-memory PGlite, from the fresh cluster's files when they exist. */
export function testPglite(): PGlite {
  const files = freshClusterFiles();
  return new PGlite(files ? { loadDataDir: files } : {});
}

/** Makes the fresh cluster's files once (a rename publishes them whole, for parallel runs). */
export async function makeFreshClusterFiles(): Promise<void> {
  if (existsSync(CLUSTER_FILES)) return;
  const db = new PGlite();
  try {
    // dumpDataDir does not wait for the start itself: before it, the dump hangs.
    await db.waitReady;
    const dump = await db.dumpDataDir("none");
    const partial = `${CLUSTER_FILES}.${process.pid}.partial`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, CLUSTER_FILES);
  } finally {
    await db.close();
  }
}
