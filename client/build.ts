/**
 * Builds the client app into dist/client (where the server looks for it, from source or from
 * dist/) when it is missing or older than its sources, so `npm start` (prestart, through `npm run
 * build`) and the browser tests always serve a current build, and a second start costs nothing. `tsx client/build.ts` builds if stale; `--force` always builds.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const CLIENT = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(CLIENT);
const BUILT = path.join(ROOT, "dist", "client", "index.html");

/** The latest mtime of a file or of anything in a directory (a directory's own: a file deleted or added). */
export function newest(p: string): number {
  if (!existsSync(p)) return 0;
  const s = statSync(p);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...readdirSync(p).map((f) => newest(path.join(p, f))));
}

export function clientBuildIsStale(): boolean {
  if (!existsSync(BUILT)) return true;
  const sources = [path.join(CLIENT, "src"), path.join(CLIENT, "index.html"), path.join(CLIENT, "vite.config.ts"), path.join(CLIENT, "build.ts"), path.join(ROOT, "package-lock.json")];
  return Math.max(...sources.map(newest)) > statSync(BUILT).mtimeMs;
}

/** One build at a time (parallel test workers share dist/client): a lock directory, taken atomically. */
async function withBuildLock<T>(fn: () => Promise<T>): Promise<T> {
  const lock = path.join(CLIENT, ".build-lock");
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock older than the deadline is left over from a killed build: take it over.
      if (Date.now() > deadline || Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 180_000) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export async function ensureClientBuilt({ force = false, quiet = false } = {}): Promise<void> {
  if (!force && !clientBuildIsStale()) return;
  await withBuildLock(() => build(force, quiet));
}

async function build(force: boolean, quiet: boolean): Promise<void> {
  if (!force && !clientBuildIsStale()) return; // another process built it while we waited
  let vite: typeof import("vite");
  try {
    vite = await import("vite");
  } catch {
    console.warn("client/build: Vite is not installed (npm install without --omit=dev builds the app); serving the existing build, if any.");
    return;
  }
  // Vite builds React's development code when NODE_ENV is set to anything but "production", and
  // vitest sets it to "test": the browser tests then drove a development build (StrictMode's
  // doubled effects, so every load's request twice, and slower code), not what `npm start`
  // serves. The build is production whoever calls it; NODE_ENV is put back after. Rejected: a
  // child process for the build, a second Node start for each stale build.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  try {
    await vite.build({ configFile: path.join(CLIENT, "vite.config.ts"), mode: "production", logLevel: quiet ? "warn" : "info" });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  await ensureClientBuilt({ force: process.argv.includes("--force") });
}
