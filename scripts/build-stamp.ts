/**
 * Whether a build is older than what it is built from: a stamp file written after a build that
 * succeeded, against the newest mtime of its sources (a directory's own mtime counts, so a file
 * deleted or added makes it stale too). `npm start` skips the server's tsc when it is current.
 */
import { existsSync, statSync, writeFileSync } from "node:fs";
import { newest } from "../client/build.ts";

export function isStale(stamp: string, sources: string[]): boolean {
  if (!existsSync(stamp)) return true;
  // At or after: a source written in the same clock tick as the stamp (mtimes are coarse) rebuilds.
  return Math.max(...sources.map(newest)) >= statSync(stamp).mtimeMs;
}

export function writeStamp(stamp: string): void {
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}
