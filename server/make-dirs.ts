/**
 * Directories the server creates and writes (DATA_DIR, the workspace root), made and checked in
 * bounded steps. Rejected: `mkdir(dir, { recursive: true })`, which loops forever, sync or not,
 * on a path where mkdir answers ENOENT under a parent that exists (anything under /proc): Node
 * makes the parent, finds it there, and tries the child again. Here each missing component is
 * one mkdir, and its error is the answer.
 */
import { constants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

/** How long preparing a directory may take: a hung mount answers no syscall at all. */
export const DIR_PROBE_TIMEOUT_MS = 2_000;

/**
 * `mkdir -p` without the loop: the missing components from the top, one mkdir each. `mode`, when
 * given, is the last component's (as `mkdir -p -m`): the others get the default, less the umask.
 */
export async function makeDirs(dir: string, mode?: number): Promise<void> {
  const missing: string[] = [];
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const stat = await fs.stat(at).catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") return undefined;
      throw err;
    });
    if (stat) {
      if (!stat.isDirectory()) throw errnoError("ENOTDIR", `${at} is a file, not a directory`, at);
      break;
    }
    missing.push(at);
    if (path.dirname(at) === at) break;
  }
  const leaf = missing[0];
  for (const d of missing.reverse()) {
    try {
      await fs.mkdir(d, d === leaf ? mode : undefined);
    } catch (err) {
      // Another process made it between the stat and the mkdir.
      if ((err as NodeJS.ErrnoException).code === "EEXIST" && (await fs.stat(d)).isDirectory()) continue;
      throw err;
    }
  }
}

/**
 * The directory made if missing (with `mode`, when given), then a file created in it and removed:
 * what a database or a workspace will do there first. Rejects with the syscall's error (its `code`
 * and `path`), or with ETIMEDOUT once `timeoutMs` passed without an answer.
 */
export async function prepareWritableDir(dir: string, opts: { mode?: number; timeoutMs?: number } = {}): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? DIR_PROBE_TIMEOUT_MS;
  const probe = path.join(dir, `.threadline-write-probe-${process.pid}`);
  const steps = (async () => {
    await makeDirs(dir, opts.mode);
    const file = await fs.open(probe, constants.O_CREAT | constants.O_TRUNC | constants.O_WRONLY);
    await file.close();
    await fs.unlink(probe);
  })();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(errnoError("ETIMEDOUT", `${dir} did not answer within ${timeoutMs} ms`, dir)), timeoutMs);
    timer.unref();
  });
  // The race keeps a handler on `steps`, so a late rejection is not unhandled.
  return Promise.race([steps, timeout]).finally(() => clearTimeout(timer));
}

function errnoError(code: string, message: string, at: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}`), { code, path: at });
}
