/**
 * Server processes behind a real PgBouncer (Debian's package, default settings), in each path
 * the store can take (server/store/pool-mode.ts):
 * - transaction mode with no session URL: the polling doorbell;
 * - transaction mode with DATABASE_DIRECT_URL: LISTEN on a direct session;
 * - session mode: LISTEN through the pooler.
 * In each: start-up logs the path and the server's effective timeouts (the bounds reach the
 * server through the pooler); a client follows a run on another instance to its terminal frame;
 * a cancel sent to another instance stops the run; a run whose instance is SIGKILLed is taken
 * over; and a rolling SIGTERM of every instance under live streams loses and doubles no frame,
 * and every client gets its terminal frame.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { framesAfter } from "../../protocol/project.ts";
import {
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
import type { SseFrame, SseStream } from "../support/sse-client.ts";
import type { ServerProcess } from "../support/server-process.ts";
import { SETTLE_BOUND_MS } from "../support/recovery-checks.ts";

const missing = pgbouncerMissing();
if (missing) console.warn(`[poolers] SKIPPED: ${missing}; these tests need PgBouncer in front of a real Postgres.`);

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
  });

  beforeAll(async () => {
    bouncer = await startPgBouncer(path.mode);
    cluster = await startCluster();
    [a, b] = await Promise.all([cluster.spawn("A", env()), cluster.spawn("B", env())]);
  }, 90_000);

  afterAll(async () => {
    await cluster?.close();
    await bouncer?.stop();
  }, 30_000);

  it("starts, detects the pooler mode, logs the path taken and the timeouts the server applies", async () => {
    for (const server of [a, b]) {
      await server.waitForOutput(new RegExp(`DATABASE_URL is ${path.mode === "transaction" ? "a transaction-mode pooler" : "a session"}.*\\(detected\\)`), 1_000);
      await server.waitForOutput(path.heard, 1_000);
      // The defaults (README "Database faults"), as the server reports them inside a statement.
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
    await within(5_000, onB.waitFor((f) => isContent(f) && f.event.delta === words[2]), "the first words on B");
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
    expect((await within(5_000, llm.closed, "the model request to close")).aborted).toBe(true);
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
    await within(5_000, onB.waitFor((f) => isContent(f) && f.event.delta === words[2]), "the first words on B");
    await victim.kill("SIGKILL");
    const frames = await within(SETTLE_BOUND_MS, onB.done, "B's stream to end after the takeover", () => cluster.output());
    assertStrictlyIncreasing(frames);
    expect(frames.filter(isTerminal)).toHaveLength(1);
    expect(frames.at(-1)?.event.type).toBe("RUN_FINISHED");
    expect(frames).toEqual(await projection(threadId));
  });

  it("a rolling SIGTERM of every instance under live streams: no frame lost or doubled, every client gets its end", async () => {
    const RUNS = 4;
    // About 3 s of streaming per run: longer than a spawn, so the signals land mid-stream.
    const words = pieces("r", 100);
    cluster.upstream.script = () => ({ text: words, chunkDelayMs: 30 });
    const stamp = Date.now();
    const threads = Array.from({ length: RUNS }, (_, i) => `pool-roll-${path.doorbell}-${stamp}-${i}`);
    const servers = () => cluster.servers.filter((s) => s.alive);
    // The replacements first, as a rolling deploy brings new instances up before it stops old ones.
    const [a2, b2] = await Promise.all([cluster.spawn("A2", env()), cluster.spawn("B2", env())]);
    const runners = threads.map((threadId, i) => followToEnd(threadId, i % 2 === 0 ? a : b, servers));
    await within(10_000, Promise.all(runners.map((c) => c.firstWords)), "every run streaming");
    // And a follower of each run on a new instance, which hears of every frame across instances.
    const followers = threads.map((threadId, i) => followToEnd(threadId, i % 2 === 0 ? b2! : a2!, servers, "connect"));
    const clients = [...runners, ...followers];
    await within(10_000, Promise.all(followers.map((c) => c.firstWords)), "every follower streaming");
    // Every old instance gets SIGTERM while its runs stream; each drains its runs and goes.
    const liveAtSignal = runners.filter((c) => !c.ended()).length;
    const exits = [a.kill("SIGTERM"), b.kill("SIGTERM")];
    const received = await within(SETTLE_BOUND_MS * 2, Promise.all(clients.map((c) => c.frames)), "every client's terminal frame", () => cluster.output());
    await Promise.all(exits);
    for (const [i, frames] of received.entries()) {
      const threadId = threads[i % RUNS]!;
      assertStrictlyIncreasing(frames);
      expect(frames.filter(isTerminal)).toHaveLength(1);
      expect(frames.at(-1)?.event.type).toBe("RUN_FINISHED");
      expect(frames).toEqual(await projection(threadId));
    }
    const reconnects = clients.reduce((n, c) => n + c.reconnects(), 0);
    console.info(`[poolers] ${path.mode}/${path.doorbell}: ${liveAtSignal} of ${RUNS} streams live at the SIGTERMs, ${reconnects} reconnects`);
    [a, b] = servers() as [ServerProcess, ServerProcess];
  });

  /** What the log says the whole run is, as frames. */
  async function projection(threadId: string): Promise<SseFrame[]> {
    return framesAfter(await cluster.store.read(threadId)).map((f) => ({ id: f.id, event: f.event })) as SseFrame[];
  }

  /**
   * Starts a run on `first` and follows it to its terminal frame, reconnecting with its last id
   * to any live instance whenever its stream ends early (its instance shut down under it).
   */
  function followToEnd(threadId: string, first: ServerProcess, servers: () => ServerProcess[], how: "run" | "connect" = "run") {
    const got: SseFrame[] = [];
    let done = false;
    let reconnects = 0;
    let streaming!: () => void;
    const firstWords = new Promise<void>((resolve) => (streaming = resolve));
    const frames = (async () => {
      let stream: SseStream | undefined =
        how === "run" ? await postRun(first, "default", { threadId, runId: "r1", text: "stream" }) : await connect(first, "default", threadId, "0");
      void stream.waitFor(isContent).then(streaming, streaming);
      try {
        for (let attempt = 0; attempt < 20; attempt++) {
          if (stream) {
            const s = stream;
            got.push(...(await s.done.catch(() => s.frames)));
            stream = undefined;
          }
          if (got.some(isTerminal)) return got;
          const live = servers();
          reconnects++;
          // A refused connect (the instance was going down as it was picked) is tried elsewhere.
          stream = await connect(live[attempt % live.length]!, "default", threadId, got.at(-1)?.id ?? "0").catch(() => undefined);
        }
        throw new Error(`no terminal frame for ${threadId} after 20 reconnects`);
      } finally {
        done = true;
      }
    })();
    return { frames, firstWords, ended: () => done, reconnects: () => reconnects };
  }
});
