/**
 * `npm run bench:peers`: Threadline's hot path side by side with its peers, in one invocation.
 *
 * One fake OpenAI-compatible upstream with fixed pacing (peers/upstream.ts), and each system in
 * its own process pointed at it: the floor (Express + openai + @ag-ui/encoder, no persistence),
 * CopilotKit's runtime (InMemoryAgentRunner + BuiltInAgent), a Mastra Agent through
 * @ag-ui/mastra, Threadline on Postgres, Threadline on PGlite. The best peer of a metric is the
 * better of CopilotKit and Mastra. Every scenario runs against every system before the next scenario starts
 * (interleaved), so a burst of load from elsewhere on the machine hits all of them alike.
 * Prints one Markdown table (rows: metrics; columns: systems, then Threadline ÷ floor and
 * ÷ best peer, then the issue's goal for Threadline on Postgres) with the load average beside it.
 *
 *   npm run bench:peers                  full sizes (200 and 500 concurrent runs, 10k-token replays, …): ~2 min
 *   npm run bench:peers -- --no-500      without the 500-run scenario
 *   npm run bench:peers -- --quick       every scenario at small sizes, well under a minute
 *   npm run bench:peers -- --systems=floor,tl-postgres   only these (floor, copilotkit, mastra, tl-postgres, tl-pglite)
 *   npm run bench:peers -- --scenarios=concurrent        only these (admission, token, concurrent, replay, idle, cancel)
 *
 * BENCH_CPU_PROF=<dir>: each system's process writes a V8 CPU profile there when it stops
 * (node --cpu-prof), to read its top self-time functions.
 * BENCH_FLUSHES=1: Threadline's processes count their writer's flushes (events and appends per
 * flush) and print them when they stop. BENCH_STATEMENT_TIMES=1: they time every statement.
 *
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) is the Postgres for
 * Threadline; it gets a fresh schema that is dropped at the end. Not a test: nothing asserts a time.
 */
import os from "node:os";
import { admission, cancel, concurrent, idleStreams, replayAndReload, tokenLatency, type Figures } from "./peers/drivers.ts";
import { metricRows, type Sizes } from "./peers/metrics.ts";
import { lockWatch } from "./peers/lock-sampler.ts";
import { startChild, type Child } from "./peers/processes.ts";
import { copilotkitSystem, floorSystem, mastraSystem, threadlineSystem, type System } from "./peers/systems.ts";
import { renderTable, type Results } from "./peers/table.ts";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const skip500 = args.includes("--no-500");
const only = args.find((a) => a.startsWith("--systems="))?.slice("--systems=".length).split(",");
const scenarios = args.find((a) => a.startsWith("--scenarios="))?.slice("--scenarios=".length).split(",");
const runs = (name: string) => !scenarios || scenarios.includes(name);

const sizes: Sizes = quick
  ? {
      admissionRuns: 8,
      single: { tokens: 100, intervalMs: 10 },
      c200: { runs: 20, tokens: 20, intervalMs: 25 },
      c500: { runs: 40, tokens: 20, intervalMs: 25 },
      replay: { tokens: 1000, times: 3 },
      idleStreams: 50,
      cancels: 3,
    }
  : {
      admissionRuns: 50,
      single: { tokens: 1000, intervalMs: 20 },
      c200: { runs: 200, tokens: 100, intervalMs: 25 },
      c500: skip500 ? undefined : { runs: 500, tokens: 100, intervalMs: 25 },
      replay: { tokens: 10_000, times: 10 },
      idleStreams: 1000,
      cancels: 10,
    };

// Everything stops by itself: a benchmark that hangs past this is killed with its children.
// Starting the six processes alone took 3 min at a 1-minute load of 22 on 2 cores (2026-11-24).
const HARD_LIMIT_MS = quick ? 10 * 60_000 : 40 * 60_000;
const children: Child[] = [];
const hardLimit = setTimeout(() => {
  process.stderr.write(`bench:peers: still running after ${HARD_LIMIT_MS / 60_000} min; stopping.\n`);
  void Promise.all(children.map((c) => c.stop())).finally(() => process.exit(2));
}, HARD_LIMIT_MS);
hardLimit.unref();

const loads: number[][] = [];
const sampleLoad = () => loads.push(os.loadavg());
const log = (s: string) => process.stderr.write(`${s}\n`);

async function main(): Promise<void> {
  sampleLoad();
  const upstream = await startChild("upstream", "./upstream.ts");
  children.push(upstream);
  const upstreamUrl = `http://127.0.0.1:${upstream.port}/v1`;
  const closedWaiters = new Map<string, (at: number) => void>();
  upstream.onMessage((msg) => {
    if (msg.type === "upstream-closed") closedWaiters.get(msg.tag)?.(msg.at);
  });
  const upstreamClosed = (tag: string) => new Promise<number>((resolve) => closedWaiters.set(tag, resolve));

  const env = { BENCH_UPSTREAM: upstreamUrl };
  const wanted: { key: string; start: () => Promise<System> }[] = [
    { key: "floor", start: async () => floorSystem(await startChild("floor", "./floor.ts", [], env)) },
    { key: "copilotkit", start: async () => copilotkitSystem(await startChild("copilotkit", "./copilotkit.ts", [], env)) },
    { key: "mastra", start: async () => mastraSystem(await startChild("mastra", "./mastra.ts", [], { ...env, MASTRA_TELEMETRY_DISABLED: "1" })) },
    { key: "tl-postgres", start: async () => threadlineSystem(await startChild("tl-postgres", "./threadline.ts", ["postgres"], env), "postgres") },
    { key: "tl-pglite", start: async () => threadlineSystem(await startChild("tl-pglite", "./threadline.ts", ["pglite"], env), "pglite") },
  ];
  const systems: System[] = [];
  const unavailable: string[] = [];
  for (const w of wanted.filter((w) => !only || only.includes(w.key))) {
    try {
      const sys = await w.start();
      children.push(sys.child);
      systems.push(sys);
      log(`started ${sys.label} (pid ${sys.child.pid})${sys.child.info ? `: ${sys.child.info}` : ""}`);
      if (sys.child.schema) {
        // Lock waits in its schema, sampled from a process of their own (peers/lock-waits.ts).
        const sampler = await startChild("lock-waits", "./lock-waits.ts");
        children.push(sampler);
        sys.locks = lockWatch(sampler, sys.child.schema);
      }
    } catch (err) {
      unavailable.push(`${w.key}: ${err instanceof Error ? err.message : String(err)}`);
      log(`could not start ${w.key}; the others go on. ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  const results: Results = new Map();
  const record = (sys: System, figures: Figures) => {
    for (const [metric, value] of Object.entries(figures)) {
      if (!results.has(metric)) results.set(metric, new Map());
      results.get(metric)!.set(sys.key, value);
    }
  };
  const started = performance.now();
  const scenario = async (name: string, fn: (sys: System) => Promise<Figures>) => {
    log(`· ${name}`);
    for (const sys of systems) {
      const t = performance.now();
      try {
        record(sys, await fn(sys));
      } catch (err) {
        log(`  ${sys.label}, ${name}: failed: ${err instanceof Error ? err.stack : String(err)}`);
      }
      log(`  ${sys.label}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
    sampleLoad();
  };

  // Warm-up, not recorded: JIT, connection pools, the first prepared statements.
  await scenario("warm-up", async (sys) => {
    await admission(sys, 3);
    return {};
  });
  if (runs("admission")) await scenario("POST → RUN_STARTED", (sys) => admission(sys, sizes.admissionRuns));
  if (runs("token")) await scenario("token latency, one stream", (sys) => tokenLatency(sys, sizes.single.tokens, sizes.single.intervalMs));
  if (runs("concurrent")) {
    await scenario(`${sizes.c200.runs} concurrent runs`, (sys) => concurrent(sys, "c200", sizes.c200.runs, sizes.c200.tokens, sizes.c200.intervalMs));
    if (sizes.c500) {
      const c500 = sizes.c500;
      await scenario(`${c500.runs} concurrent runs`, (sys) => concurrent(sys, "c500", c500.runs, c500.tokens, c500.intervalMs));
    }
  }
  if (runs("replay")) await scenario("catch-up and reload", (sys) => replayAndReload(sys, sizes.replay.tokens, sizes.replay.times));
  if (runs("idle")) await scenario("idle streams", (sys) => idleStreams(sys, sizes.idleStreams));
  if (runs("cancel")) await scenario("cancel → upstream closed", (sys) => cancel(sys, sizes.cancels, upstreamClosed));
  const minutes = (performance.now() - started) / 60_000;

  const load1 = loads.map((l) => l[0]!);
  const pg = systems.find((s) => s.key === "tl-postgres")?.child.info;
  console.log(`\n## bench:peers${quick ? " --quick" : ""}${skip500 ? " --no-500" : ""}${scenarios ? ` --scenarios=${scenarios.join(",")}` : ""}, ${new Date().toISOString()}\n`);
  console.log(`Machine: ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? "?"}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}${pg ? `, ${pg.replace(/ \(schema.*/, "")}` : ""}.`);
  console.log(
    `Load average (1/5/15 min): at start ${loads[0]!.map((l) => l.toFixed(2)).join(" / ")}, at end ${loads.at(-1)!.map((l) => l.toFixed(2)).join(" / ")}; 1-min load between scenarios ${Math.min(...load1).toFixed(2)}–${Math.max(...load1).toFixed(2)} on ${os.cpus().length} cores. Measured in ${minutes.toFixed(1)} min.\n`,
  );
  console.log(renderTable(metricRows(sizes), systems, results));
  console.log("\nTimes in ms on one machine (all processes share its clock). Ratios: Threadline's figure ÷ the floor's, ÷ the best peer's (per metric, the better of the peers measured: CopilotKit and Mastra). “—”: the system has no such route or no figure.");
  for (const u of unavailable) console.log(`\nNot measured: ${u}`);
}

try {
  await main();
} finally {
  await Promise.all(children.map((c) => c.stop()));
}
process.exit(0);
