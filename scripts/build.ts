/**
 * `npm run build`: the package as it ships, in dist/.
 * - dist/server, dist/protocol and dist/conformance: JavaScript and declarations from tsc
 *   (tsconfig.build.json), emptied first so a deleted source leaves no stale module behind;
 * - dist/client: the web app, rebuilt by Vite only when its sources changed (client/build.ts).
 * dist/client is not emptied here: browser tests in other workers may be serving it.
 */
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureClientBuilt } from "../client/build.ts";

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

for (const dir of ["server", "protocol", "conformance"]) rmSync(path.join(ROOT, "dist", dir), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
execFileSync(process.execPath, [tsc, "-p", path.join(ROOT, "tsconfig.build.json")], { stdio: "inherit" });
await ensureClientBuilt({ quiet: true });
