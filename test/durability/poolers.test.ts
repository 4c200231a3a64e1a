/**
 * Server processes behind a real PgBouncer (Debian's package, default settings), in each path
 * the store can take (server/store/pool-mode.ts):
 * - transaction mode with no session URL: the polling doorbell;
 * - transaction mode with DATABASE_DIRECT_URL: LISTEN on a direct session;
 * - session mode: LISTEN through the pooler.
 * In each: start-up logs the path and the server's effective timeouts (the bounds reach the
 * server through the pooler); a client follows a run on another instance to its terminal frame;
 * a cancel sent to another instance stops the run; a run whose instance is SIGKILLed is taken
 * over; and a rolling upgrade under live streams (a replacement up, then SIGTERM of one old
 * instance, whose drain is shorter than the answers it streams, so they are handed over
 * mid-answer; then the next) loses and doubles no frame and no word, and every client gets its
 * terminal frame.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SPAWN_READY_BOUND_MS } from "../support/server-process.ts";
import { framesAfter } from "../../protocol/project.ts";
import { assembledText, followToEnd } from "../support/follow-run.ts";
import { EVENT_BOUND_MS,
  assertStrictlyIncreasing,
  connect,
  isContent,
  isTerminal,
  pieces,
  postRun,
  startCluster,
  within,
  type Cluster,
} from "../support/multiprocess-kit.ts";
import { pgbouncerMissing, startPgBouncer, type PgBouncer } from "../support/pgbouncer.ts";
import type { SseFrame } from "../support/sse-client.ts";
import type { ServerProcess } from "../support/server-process.ts";
import { SETTLE_BOUND_MS } from "../support/recovery-checks.ts";
import { lastUserText } from "../support/scripted-upstream.ts";

const missing = pgbouncerMissing();
if (missing) console.warn(`[poolers] SKIPPED: ${missing}; these tests need PgBouncer in front of a real Postgres.`);

/** The drain of every instance here: shorter than the runs of the rolling upgrade, which it cuts. */
const DRAIN_MS = 500;

const PATHS = [
  { mode: "transaction", direct: false, doorbell: "polling", heard: /heard by polling every 200 ms/ },
  { mode: "transaction", direct: true, doorbell: "listen-direct", heard: /heard by LISTEN on a session of DATABASE_DIRECT_URL/ },
  { mode: "session", direct: false, doorbell: "listen", heard: /heard by LISTEN on a session of DATABASE_URL/ },
] as const;

describe.skipIf(missing !== undefined).each(PATHS)("behind PgBouncer in $mode mode, doorbell $doorbell", (path) => {
  let bouncer: PgBouncer;
  let cluster: Cluster;
  let a: ServerProcess;
  let b: ServerProcess;
  const env = () => ({
    DATABASE_URL: bouncer.url,
    DATABASE_DIRECT_URL: path.direct ? process.env.DATABASE_URL : undefined,
    DRAIN_TIMEOUT_MS: String(DRAIN_MS),
  });

  beforeAll(async () => {
    bouncer = await startPgBouncer(path.mode);
    cluster = await startCluster();
    [a, b] = await Promise.all([cluster.spawn("A", env()), cluster.spawn("B", env())]);
  }, SPAWN_READY_BOUND_MS + 30_000);

  afterAll(async () => {
    await cluster?.close();
    await bouncer?.stop();
  }, 30_000);

  it("starts, detects the pooler mode, logs the path taken and the timeouts the server applies", async () => {
    for (const server of [a, b]) {
      await server.waitForOutput(new RegExp(`DATABASE_URL is ${path.mode === "transaction" ? "a transaction-mode pooler" : "a session"}.*\\(detected\\)`), 1_000);
      await server.waitForOutput(path.heard, 1_000);
      // The defaults (docs/failure-modes.md "Database bounds"), as the server reports them inside a statement.
      await server.waitForOutput(/database timeouts in effect: statement_timeout=15s lock_timeout=5s idle_in_transaction_session_timeout=5s tcp_user_timeout=10000 \(lease statements: lock_timeout=1s\)/, 1_000);
    }
    expect(a.output()).not.toMatch(/unsupported startup parameter/);
  });

  it("a client on B follows A's run live to its terminal frame, the same frames as on A", async () => {
    const threadId = `pool-follow-${path.doorbell}-${Date.now()}`;
    const words = pieces("w", 40);
    cluster.upstream.script = () => ({ text: words, chunkDelayMs: 10, holdAfter: 3 });
    const first = cluster.upstream.requests.length;
    const onA = await postRun(a, "default", { threadId, runId: "r1", text: "stream" });
    const llm = await within(10_000, cluster.upstream.request(first), "A's LLM request");
    await llm.held;
    // B joins while the run is live: everything after this point reaches B only through the doorbell.
    const onB = await connect(b, "default", threadId, "0");
    await within(EVENT_BOUND_MS, onB.waitFor((f) => isContent(f) && f.event.delta === words[2]), "the first words on B");
    llm.release();
    const [fromA, fromB] = await within(15_000, Promise.all([onA.done, onB.done]), "both streams to end", () => cluster.output());
    assertStrictlyIncreasing(fromB);
    expect(fromB.filter(isContent).map((f) => f.event.delta).join("")).toBe(words.join(""));
    expect(fromB.at(-1)?.event.type).toBe("RUN_FINISHED");
    expect(fromB).toEqual(fromA);
  });

  it("a cancel sent to B stops the run on A and aborts its model request", async () => {
    const threadId = `pool-cancel-${path.doorbell}-${Date.now()}`;
    cluster.upstream.script = () => ({ text: pieces("x", 40), holdAfter: 2 });
    const first = cluster.upstream.requests.length;
    const onA = await postRun(a, "default", { threadId, runId: "r1", text: "stream" });
    const llm = await within(10_000, cluster.upstream.request(first), "A's LLM request");
    await llm.held;
    const res = await fetch(`${b.url}/api/threads/${threadId}/cancel`, { method: "POST" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ cancelled: true, status: "CANCELLED" });
    expect((await within(EVENT_BOUND_MS, llm.closed, "the model request to close")).aborted).toBe(true);
    expect(llm.piecesSent).toBe(2);
    const frames = await within(10_000, onA.done, "A's stream to end");
    expect(frames.filter(isTerminal).map((f) => f.event)).toEqual([expect.objectContaining({ type: "RUN_ERROR", code: "CANCELLED" })]);
  });

  it("SIGKILL of the instance running a run: B takes it over and a client on B gets every frame once and the end", async () => {
    const threadId = `pool-kill-${path.doorbell}-${Date.now()}`;
    const words = pieces("k", 8);
    cluster.upstream.script = (_body, n) => (n === first ? { text: words, holdAfter: 3 } : { text: words, chunkDelayMs: 5 });
    const first = cluster.upstream.requests.length;
    const victim = await cluster.spawn("A-kill", env());
    const onVictim = await postRun(victim, "default", { threadId, runId: "r1", text: "stream" });
    void onVictim.done.catch(() => {}); // it dies with the process
    const llm = await within(10_000, cluster.upstream.request(first), "the victim's LLM request");
    await llm.held;
    const onB = await connect(b, "default", threadId, "0");
    await within(EVENT_BOUND_MS, onB.waitFor((f) => isContent(f) && f.event.delta === words[2]), "the first words on B");
    await victim.kill("SIGKILL");
    const frames = await within(SETTLE_BOUND_MS, onB.done, "B's stream to end after the takeover", () => cluster.output());
    assertStrictlyIncreasing(frames);
    expect(frames.filter(isTerminal)).toHaveLength(1);
    expect(frames.at(-1)?.event.type).toBe("RUN_FINISHED");
    expect(frames).toEqual(await projection(threadId));
  }, SPAWN_READY_BOUND_MS + 60_000);

  it("a rolling upgrade under live streams: each old instance gets SIGTERM once its replacement is up, its cut answers are handed over; no frame lost or doubled, no word twice, every client gets its end", async () => {
    const RUNS = 4;
    const words = pieces("r", 200);
    // Every answer stops and waits at a point that moves on at each request of its run (20 words,
    // then 40, ...) while the old instances live: each SIGTERM finds every run it holds mid-answer
    // for longer than its drain (DRAIN_MS), cuts it and hands it over; the next instance
    // continues the same answer past the words clients have. No timing decides that.
    let holding = true;
    const asked = new Map<string, number>();
    cluster.upstream.script = (body) => {
      const run = lastUserText(body);
      asked.set(run, (asked.get(run) ?? 0) + 1);
      return holding ? { text: words, chunkDelayMs: 5, holdAfter: 20 * asked.get(run)! } : { text: words, chunkDelayMs: 5 };
    };
    const stamp = Date.now();
    const threads = Array.from({ length: RUNS }, (_, i) => `pool-roll-${path.doorbell}-${stamp}-${i}`);
    const servers = () => cluster.servers.filter((s) => s.alive);
    const first = cluster.upstream.requests.length;
    const held = (...ns: number[]) => Promise.all(ns.map(async (n) => (await cluster.upstream.request(first + n)).held));
    // A rolling deploy brings a new instance up before it stops an old one, one at a time.
    const a2 = await cluster.spawn("A2", env());
    const runners = threads.map((threadId, i) => followToEnd({ threadId, first: i % 2 === 0 ? a : b, servers, text: `stream ${i}` }));
    await within(10_000, held(0, 1, 2, 3), "every run's answer waiting mid-way");
    // And a follower of each run on the new instance, which hears of every frame across instances.
    const followers = threads.map((threadId) => followToEnd({ threadId, first: a2, servers, how: "connect" }));
    const clients = [...runners, ...followers];
    await within(10_000, Promise.all([...runners, ...followers].map((c) => c.firstWords)), "every client streaming");

    expect((await a.kill("SIGTERM")).code).toBe(0);
    // A's two runs, taken over by B or A2, ask again and wait further on.
    await within(SETTLE_BOUND_MS, held(4, 5), "A's runs continued elsewhere", () => cluster.output());
    const b2 = await cluster.spawn("B2", env());
    holding = false; // what B hands over runs to its end on A2 or B2
    expect((await b.kill("SIGTERM")).code).toBe(0);
    for (const r of cluster.upstream.requests) r.release(); // A's runs that A2 took over
    const received = await within(SETTLE_BOUND_MS * 2, Promise.all(clients.map((c) => c.frames)), "every client's terminal frame", () => cluster.output());

    for (const [i, frames] of received.entries()) {
      const threadId = threads[i % RUNS]!;
      assertStrictlyIncreasing(frames);
      expect(frames.filter(isTerminal)).toHaveLength(1);
      // A RUN_ERROR here says its code and message in the failure.
      expect(frames.at(-1)?.event.type, `${threadId}: ${JSON.stringify(frames.at(-1)?.event)}`).toBe("RUN_FINISHED");
      expect(assembledText(frames)).toBe(words.join(""));
      expect(frames).toEqual(await projection(threadId));
    }
    const marks = (await Promise.all(threads.map((t) => cluster.store.read(t)))).flat().filter((e) => e.type === "workflow.handed_over");
    // A's two runs, B's two, and those of A's that B took over: every one mid-answer.
    expect(marks.length).toBeGreaterThanOrEqual(4);
    expect(marks.every((e) => e.type === "workflow.handed_over" && e.data.cut)).toBe(true);
    const reconnects = clients.reduce((n, c) => n + c.reconnects(), 0);
    console.info(
      `[poolers] ${path.mode}/${path.doorbell}: ${marks.length} hand-offs mid-answer over 2 SIGTERMs, ` +
        `${cluster.upstream.requests.length - first} model requests for ${RUNS} runs, ${reconnects} reconnects`,
    );
    [a, b] = [a2, b2];
  }, 2 * SPAWN_READY_BOUND_MS + 60_000);

  /** What the log says the whole run is, as frames. */
  async function projection(threadId: string): Promise<SseFrame[]> {
    return framesAfter(await cluster.store.read(threadId)).map((f) => ({ id: f.id, event: f.event })) as SseFrame[];
  }
});
