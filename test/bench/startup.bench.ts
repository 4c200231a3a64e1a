/**
 * Start-up on a starved CPU: the standalone server (`node dist/server/main.js`, as `npm start`
 * runs it; `--source` for `tsx server/main.ts`) started while busy loops hold every core (two per
 * core; `--loops=N` per core, 0 for an idle baseline), on a fresh PGlite DATA_DIR, on that
 * directory again, and, with DATABASE_URL, on a fresh Postgres schema. For each start: the time
 * to the first `/readyz` 200 (polled every 50 ms from the spawn), and the event loop's longest
 * stall from the process's first line of JavaScript to ready, and to ready + 3 s (work a start
 * leaves in the background, such as loading CopilotKit's runtime, stalls a serving loop too),
 * measured inside the server by monitorEventLoopDelay (startup/probe.mjs). Stalls over 100 ms are
 * listed with the log line that came before each, which names the phase. Not a test: nothing
 * here asserts a time; the idle run (`--loops=0`) is the baseline for the ratios.
 *
 * `npm run build` first (dist/). Options: --rounds=N (3), --loops=N (2), --source, --no-postgres.
 */
import { type ChildProcess, fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { startBusyLoops } from "../support/busy-loops.ts";
import { unusedPort } from "../support/ports.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const PROBE = path.join(ROOT, "test/bench/startup/probe.mjs");
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const ROUNDS = Number(arg("rounds") ?? 3);
const LOOPS_PER_CORE = Number(arg("loops") ?? 2);
const FROM_SOURCE = process.argv.includes("--source");
const DATABASE_URL = process.argv.includes("--no-postgres") ? undefined : process.env.DATABASE_URL;
/** Past this a start is reported as not ready rather than waited for. */
const READY_BOUND_MS = 180_000;
const SETTLE_MS = 3_000;

interface Report {
  maxMs: number;
  p99Ms: number;
  atMs: number;
  gaps: { endedAtMs: number; ms: number }[];
}

interface Start {
  scenario: string;
  readyMs: number | undefined;
  stallToReadyMs: number;
  stallSettledMs: number;
  gaps: { ms: number; after: string }[];
  failure?: string;
}

function ask(child: ChildProcess): Promise<Report> {
  return new Promise((resolve) => {
    child.once("message", (m) => resolve(m as Report));
    child.send("report");
  });
}

async function startOnce(scenario: string, env: Record<string, string>): Promise<Start> {
  const port = await unusedPort();
  const entry = FROM_SOURCE ? path.join(ROOT, "server/main.ts") : path.join(ROOT, "dist/server/main.js");
  const execArgv = FROM_SOURCE ? ["--import", "tsx", "--import", PROBE] : ["--import", PROBE];
  const t0 = performance.now();
  const child = fork(entry, [], {
    cwd: ROOT,
    execArgv,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  // Each log line with when it arrived, on the probe's clock (ms since the child began).
  const lines: { atMs: number; msg: string }[] = [];
  let exited: string | undefined;
  for (const stream of [child.stdout!, child.stderr!]) {
    let buf = "";
    stream.setEncoding("utf8").on("data", (d: string) => {
      buf += d;
      for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        let msg = line;
        try {
          msg = (JSON.parse(line) as { msg?: string }).msg ?? line;
        } catch {}
        lines.push({ atMs: performance.now() - t0, msg: msg.slice(0, 90) });
      }
    });
  }
  child.once("exit", (code, signal) => {
    exited = `exited (${code ?? signal}) before ready: ${lines.at(-1)?.msg ?? ""}`;
  });
  let readyMs: number | undefined;
  while (!exited && performance.now() - t0 < READY_BOUND_MS) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(5_000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) {
      readyMs = performance.now() - t0;
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  if (readyMs === undefined) {
    child.kill("SIGKILL");
    return { scenario, readyMs, stallToReadyMs: Number.NaN, stallSettledMs: Number.NaN, gaps: [], failure: exited ?? "not ready in time" };
  }
  const atReady = await ask(child);
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const settled = await ask(child);
  const stopped = new Promise<void>((r) => child.once("exit", () => r()));
  child.kill("SIGTERM");
  await stopped;
  // The probe's clock started a little after the spawn; the offset (tens of ms) is within the gaps' own grain.
  const after = (endMs: number, ms: number) => [...lines].reverse().find((l) => l.atMs <= endMs - ms)?.msg ?? "(before the first log line)";
  return {
    scenario,
    readyMs,
    stallToReadyMs: atReady.maxMs,
    stallSettledMs: settled.maxMs,
    gaps: settled.gaps.map((g) => ({ ms: g.ms, after: `${after(g.endedAtMs, g.ms)} @${Math.round(g.endedAtMs - g.ms)} ms` })),
  };
}

async function withSchema<T>(fn: (schema: string) => Promise<T>): Promise<T> {
  const schema = `bench_startup_${Math.random().toString(36).slice(2, 10)}`;
  try {
    return await fn(schema);
  } finally {
    const c = new pg.Client({ connectionString: DATABASE_URL });
    await c.connect();
    await c.query(`drop schema if exists "${schema}" cascade`);
    await c.end();
  }
}

const results: Start[] = [];
const loops = LOOPS_PER_CORE > 0 ? startBusyLoops({ perCore: LOOPS_PER_CORE, maxMs: 20 * 60_000 }) : undefined;
const load0 = loadavg();
try {
  for (let round = 0; round < ROUNDS; round++) {
    const dataDir = mkdtempSync(path.join(tmpdir(), "bench-startup-"));
    try {
      results.push(await startOnce("PGlite, fresh DATA_DIR", { DATA_DIR: dataDir }));
      results.push(await startOnce("PGlite, DATA_DIR again", { DATA_DIR: dataDir }));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    if (DATABASE_URL) results.push(await withSchema((schema) => startOnce("Postgres, fresh schema", { DATABASE_URL: DATABASE_URL!, DATABASE_SCHEMA: schema })));
  }
} finally {
  await loops?.stop();
}

const fmt = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? "—" : n >= 100 ? n.toFixed(0) : n.toFixed(1));
console.log(`\nstart-up, ${FROM_SOURCE ? "tsx server/main.ts" : "node dist/server/main.js"}, ${loops ? `${loops.count} busy loops (${LOOPS_PER_CORE} per core)` : "no busy loops"}, ${ROUNDS} rounds`);
console.log(`load average at start ${load0.map((l) => l.toFixed(2)).join(" / ")}, at end ${loadavg().map((l) => l.toFixed(2)).join(" / ")}\n`);
console.log("| scenario | round | to /readyz 200 (ms) | longest stall to ready (ms) | longest stall to ready + 3 s (ms) |");
console.log("|---|---:|---:|---:|---:|");
const rounds = new Map<string, number>();
for (const r of results) {
  const n = (rounds.get(r.scenario) ?? 0) + 1;
  rounds.set(r.scenario, n);
  console.log(`| ${r.scenario} | ${n} | ${r.failure ? `failed: ${r.failure}` : fmt(r.readyMs)} | ${fmt(r.stallToReadyMs)} | ${fmt(r.stallSettledMs)} |`);
}
console.log("\nstalls over 100 ms (interval probe), with the log line before each:");
for (const r of results) for (const g of r.gaps) console.log(`  ${r.scenario}: ${g.ms} ms after "${g.after}"`);
