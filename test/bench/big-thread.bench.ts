/**
 * Reading back a thread of 30 MB of legal input (issue 30): 30 runs, each a user message of
 * ~0.95 MB of base64 of random bytes (what an image's data is like: compression does not shrink
 * it; under MAX_STRING_BYTES), posted through the real run route and answered by
 * the offline demo model, on PGlite and, when DATABASE_URL is set, Postgres. For each way a
 * client reads the thread (GET, /events pages, connect as a reload, connect replaying from the
 * start), the wall time, the longest event-loop block meanwhile, and the status, against a
 * baseline in the same run: one GET of a thread of the same runs with small messages.
 * Run with `npm run bench:big-thread`; prints a table, each read's median of BIG_THREAD_REPEATS
 * (3), with the load average before and after. BIG_THREAD_BUSY=2: two busy loops per core during the
 * reads; BIG_THREAD_PROFILE=dir: a CPU profile of each read. Not a test: nothing here asserts a time.
 */
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { Session } from "node:inspector/promises";
import { startBusyLoops } from "../support/busy-loops.ts";
import { backends, startTestServer, type TestServer } from "../support/server.ts";
import { measure } from "./support/measure-block.ts";

const RUNS = Number(process.env.BIG_THREAD_RUNS ?? 30);
/** How many times each read is measured; the table shows the median. */
const REPEATS = Number(process.env.BIG_THREAD_REPEATS ?? 3);
/**
 * A directory: each read's CPU profile (the server's and the client's, one process) is written
 * there as <backend>-<n>.cpuprofile, for Chrome's DevTools or speedscope. The profiler runs for the
 * reads only, not the build, which is most of the bench's time.
 */
const PROFILE_DIR = process.env.BIG_THREAD_PROFILE;
/** Busy loops per core (test/support/busy-loops.ts) while the reads run, not the build: 0 for none. */
const BUSY_PER_CORE = Number(process.env.BIG_THREAD_BUSY ?? 0);
const MESSAGE_CHARS = 950 * 1024;

interface Row {
  backend: string;
  what: string;
  ms: number;
  maxBlockMs: number;
  detail: string;
}

async function buildThread(server: TestServer, threadId: string, chars: number): Promise<void> {
  for (let r = 0; r < RUNS; r++) {
    const res = await fetch(`${server.url}/api/agents/default/run`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      // The client sends the new message only: the thread's history is the log's.
      body: JSON.stringify({ threadId, runId: `${threadId}-r${r}`, messages: [{ id: `${threadId}-u${r}`, role: "user", content: randomBytes(Math.floor((chars * 3) / 4)).toString("base64") }], state: {}, tools: [], context: [] }),
    });
    if (res.status !== 200) throw new Error(`run ${r}: ${res.status} ${await res.text()}`);
    const frames = await drain(res);
    if (frames === 0) throw new Error(`run ${r}: no frames`);
  }
}

/**
 * The frames of a response, counted by their blank-line ends in its bytes. Rejected: the tests'
 * frame parser (readSseFrames), which took seconds on a 29 MB snapshot frame on its own and
 * measured the client, not the server; and res.text(), whose UTF-8 decoding of 29 MB was 180-230
 * ms of the profile of a read, on the server's own event loop (the client is in this process).
 */
async function drain(res: Response): Promise<number> {
  const bytes = Buffer.from(await res.arrayBuffer());
  let frames = 0;
  for (let at = bytes.indexOf("\n\n"); at !== -1; at = bytes.indexOf("\n\n", at + 2)) frames++;
  return frames;
}

async function profiled<T>(name: string, fn: () => Promise<T>): Promise<T> {
  if (!PROFILE_DIR) return fn();
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  try {
    return await fn();
  } finally {
    const { profile } = await session.post("Profiler.stop");
    await writeFile(`${PROFILE_DIR}/${name}.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
  }
}

const table: Row[] = [];
console.log(`load average at the start: ${loadavg().map((l) => l.toFixed(1)).join(", ")}`);
for (const backend of backends()) {
  const server = await startTestServer({ backend });
  try {
    const small = `small-${backend}-${Date.now()}`;
    const big = `big-${backend}-${Date.now()}`;
    const t = performance.now();
    await buildThread(server, small, 100);
    await buildThread(server, big, MESSAGE_CHARS);
    console.log(`${backend}: built ${RUNS} runs of ${MESSAGE_CHARS} chars in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const get = (threadId: string) => async () => {
      const res = await fetch(`${server.url}/api/threads/${threadId}`);
      const body = await res.arrayBuffer(); // bytes, not text: see drain()
      return `${res.status}, ${(body.byteLength / 1e6).toFixed(1)} MB`;
    };
    const connect = (threadId: string, headers: Record<string, string> = {}) => async () => {
      const res = await fetch(`${server.url}/api/agents/default/connect`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
        body: JSON.stringify({ threadId }),
      });
      return `${res.status}, ${await drain(res)} frames`;
    };
    const events = (threadId: string) => async () => {
      let after = 0;
      let pages = 0;
      let n = 0;
      for (;;) {
        const res = await fetch(`${server.url}/api/threads/${threadId}/events?after=${after}`);
        if (res.status !== 200) return `${res.status} at page ${pages}: ${(await res.text()).slice(0, 120)}`;
        const page = (await res.json()) as { events: { seq: number }[]; next: number | null };
        pages++;
        n += page.events.length;
        if (page.next === null) break;
        after = page.next;
      }
      return `200, ${n} events in ${pages} pages`;
    };
    let runs = 0;
    const run = (threadId: string) => async () => {
      const n = runs++;
      const res = await fetch(`${server.url}/api/agents/default/run`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ threadId, runId: `${threadId}-more${n}`, messages: [{ id: `${threadId}-more${n}`, role: "user", content: "hello" }], state: {}, tools: [], context: [] }),
      });
      return `${res.status}, ${await drain(res)} frames`;
    };
    const rows: [string, () => Promise<string>][] = [
      ["baseline: GET of the same runs with 100-char messages", get(small)],
      ["GET /api/threads/:id", get(big)],
      ["GET /api/threads/:id/events, every page", events(big)],
      ["connect, no cursor (reload)", connect(big)],
      ["connect from id 1 (every frame replayed)", connect(big, { "Last-Event-ID": "1" })],
      // Last: it adds a run to the thread. Its admission reads the thread's checkpoint.
      ["a run of a one-word message, posted to its end", run(big)],
    ];
    // The reads as they are, then (BIG_THREAD_BUSY) again beside the busy loops: one build for both.
    for (const perCore of BUSY_PER_CORE > 0 ? [0, BUSY_PER_CORE] : [0]) {
      const busy = perCore > 0 ? startBusyLoops({ perCore, maxMs: 10 * 60_000 }) : undefined;
      const label = perCore > 0 ? `${backend}, ${perCore} busy loops per core` : backend;
      try {
        for (const [i, [what, fn]] of rows.entries()) {
          const runs: Awaited<ReturnType<typeof measure>>[] = [];
          for (let n = 0; n < REPEATS; n++) runs.push(await profiled(`${backend}-${perCore}-${i}-${n}`, () => measure(fn)));
          runs.sort((a, b) => a.ms - b.ms);
          table.push({ backend: label, what, ...runs[Math.floor(runs.length / 2)]! });
        }
      } finally {
        await busy?.stop();
      }
      console.log(`${label}: read, load average ${loadavg().map((l) => l.toFixed(1)).join(", ")}`);
    }
  } finally {
    await server.close();
  }
}

const base = new Map(table.filter((r) => r.what.startsWith("baseline")).map((r) => [r.backend, r.ms]));
console.log("\n| backend | read | ms | × baseline | longest loop block ms | answer |\n|---|---|---:|---:|---:|---|");
for (const r of table) {
  console.log(`| ${r.backend} | ${r.what} | ${r.ms.toFixed(0)} | ${(r.ms / base.get(r.backend)!).toFixed(1)} | ${r.maxBlockMs.toFixed(0)} | ${r.detail} |`);
}
console.log(`\nload average at the end: ${loadavg().map((l) => l.toFixed(1)).join(", ")}`);
