/**
 * `npm run test:starved`: the suites whose tests have timeouts (start-up, migrations, readiness,
 * several processes, poolers, durability) run while busy loops hold every core, two per core: the
 * CPU a pod under a limit or a shared node gives. `--quick` runs the start-up, migration and
 * readiness part only (a few minutes; what .ci/run does). Extra arguments go to vitest (a file
 * filter, `-t name`). The loops are stopped however this ends: success, failure, a signal (and
 * each stops by itself after `STARVED_MAX_MIN` minutes, 45 by default, if this process is killed
 * outright).
 *
 * The suites are chosen by vitest's file filters (parts of a path), so that a new start-up,
 * migration or readiness test file is included by its name.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { startBusyLoops } from "../test/support/busy-loops.ts";

/** Start-up, migrations, readiness: what must hold on a busy CPU for a server to come up at all. */
const QUICK = ["startup", "data-dir", "migration", "missing-schema", "readiness", "readyz", "test/server/bounds"];
/** The rest of the suites with timeouts: several processes, poolers, outages, chaos, recovery. */
const FULL = [...QUICK, "test/durability", "pool-mode", "test/store/availability", "test/server/recovery", "schema-window"];

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const passed = args.filter((a) => a !== "--quick");
const filters = passed.some((a) => !a.startsWith("-")) ? [] : quick ? QUICK : FULL;
const maxMs = Number(process.env.STARVED_MAX_MIN ?? 45) * 60_000;

// vitest's own bin (its package.json "bin"), run by this Node: no shell, no npx in between.
const vitest = path.join(path.dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");
let child: ReturnType<typeof spawn> | undefined;
// Registered before the loops' own handlers (which stop them and then die by the signal): vitest
// is told first, so that it does not outlive this process.
for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(s, () => child?.kill(s));
const loops = startBusyLoops({ perCore: 2, maxMs });
console.log(`test:starved: ${loops.count} busy loops (two per core) for at most ${maxMs / 60_000} min; vitest run ${[...filters, ...passed].join(" ")}`);
const startedAt = performance.now();
const code = await new Promise<number>((resolve) => {
  child = spawn(process.execPath, [vitest, "run", ...filters, ...passed], { stdio: "inherit" });
  child.once("exit", (c, signal) => resolve(c ?? (signal ? 128 : 1)));
  child.once("error", () => resolve(1));
});
await loops.stop();
console.log(`test:starved: ${((performance.now() - startedAt) / 60_000).toFixed(1)} min under busy loops; vitest exited ${code}`);
process.exit(code);
