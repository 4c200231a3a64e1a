/**
 * `npm run build`: the package as it ships, in dist/.
 * - dist/server, dist/protocol and dist/conformance: JavaScript and declarations from tsc
 *   (tsconfig.build.json), emptied first so a deleted source leaves no stale module behind;
 * - dist/client: the web app, rebuilt by Vite only when its sources changed (client/build.ts).
 * dist/client is not emptied here: browser tests in other workers may be serving it.
 *
 * `--if-stale` (what `npm start`'s prestart and `npm pack`'s prepack run) skips tsc when dist/ is newer than every source
 * and config it is built from (a stamp written after a build that succeeded): a start rebuilt
 * every time took 36 s at load 2.7 and 3.5 min at load 15 before the server ran. Rejected: tsc's
 * own `incremental`, whose .tsbuildinfo would still type-check the whole program on each start.
 */
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureClientBuilt } from "../client/build.ts";
import { isStale, writeStamp } from "./build-stamp.ts";

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

const SOURCES = ["server", "protocol", "conformance", "tsconfig.json", "tsconfig.build.json", "package.json", "package-lock.json"].map((s) => path.join(ROOT, s));
const STAMP = path.join(ROOT, "dist", ".server-built");

if (!process.argv.includes("--if-stale") || isStale(STAMP, SOURCES)) {
  rmSync(STAMP, { force: true });
  for (const dir of ["server", "protocol", "conformance"]) rmSync(path.join(ROOT, "dist", dir), { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", path.join(ROOT, "tsconfig.build.json")], { stdio: "inherit" });
  writeStamp(STAMP);
} else {
  console.log("dist/ is newer than its sources: not rebuilt (npm run build rebuilds)");
}
await ensureClientBuilt({ quiet: true });
