/**
 * What a run costs the database. One run of N tokens issues O(commits) statements: the writer's
 * flushes, one round trip each, and a constant number of reads and lease statements, never one
 * per token; and a stream that keeps up is fed from the commit, so it reads the log only to catch
 * up, whatever N.
 * A run's admission is one read and one commit, and its stream starts from the admission's
 * events in hand: RUN_STARTED after two round trips.
 */
import { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FlushInfo } from "../../server/store/writer.ts";
import { backends, type BackendName, openStore, startTestServer, testSchema } from "../support/server.ts";
import { countingDb, isLogRead, isTimed, type StatementCounts } from "../support/counting-db.ts";
import { postSse } from "../support/sse-client.ts";
import { defaultAgent } from "../../server/agents/default-agent.ts";

let mock: LLMock;
let url: string;

beforeAll(async () => {
  // One character per chunk: a run streams as many deltas as its answer has characters.
  mock = new LLMock({ port: 0, host: "127.0.0.1", chunkSize: 1, latency: 1, logLevel: "silent" });
  mock.addFixtures([{ match: { predicate: () => true }, response: (req) => ({ content: "x".repeat(Number(/\d+/.exec(JSON.stringify(req.messages.at(-1)?.content))?.[0] ?? 10)) }) }]);
  url = `${(await mock.start()).replace(/\/$/, "")}/v1`;
});
afterAll(async () => {
  await mock.stop();
});

/** A test server whose store counts every statement it sends (support/counting-db.ts). */
async function countingServer(backend: BackendName, onFlush?: (f: FlushInfo) => void) {
  const counting: { counts?: StatementCounts } = {};
  const store = openStore(backend, testSchema(), {
    ...(onFlush && { writer: { onFlush } }),
    instrument: (db) => {
      const c = countingDb(db);
      counting.counts = c.counts;
      return c.db;
    },
  });
  const server = await startTestServer({ backend, llmUrl: url, store });
  return {
    server,
    /** The counts so far; they keep growing, so a test keeps a copy of a point it compares with. */
    counts: () => counting.counts!,
    async close() {
      await server.close();
      await store.close();
    },
  };
}

describe.each(backends())("statements per run on %s", (backend) => {
  async function measure(tokens: number): Promise<Omit<StatementCounts, "trips"> & { flushes: number; deltas: number }> {
    let flushes = 0;
    const { server, counts, close } = await countingServer(backend, (f) => void (f.ok && flushes++));
    try {
      // Warm up (migrations, the recovery sweep at start), then count one run alone.
      await (await postSse(`${server.url}/api/agents/default/run`, { threadId: "warm", runId: "warm", messages: [{ id: "w", role: "user", content: "2" }] })).done;
      await server.threadline.engine.idle();
      const before = { ...counts() };
      flushes = 0;
      const frames = await (await postSse(`${server.url}/api/agents/default/run`, {
        threadId: `t-${tokens}`, runId: `r-${tokens}`, messages: [{ id: "m", role: "user", content: String(tokens) }],
      })).done;
      await server.threadline.engine.idle();
      const after = counts();
      return {
        total: after.total - before.total,
        roundTrips: after.roundTrips - before.roundTrips,
        logReads: after.logReads - before.logReads,
        timed: after.timed - before.timed,
        transactions: after.transactions - before.transactions,
        flushes,
        deltas: frames.filter((f) => f.event.type === "TEXT_MESSAGE_CONTENT").length,
      };
    } finally {
      await close();
    }
  }

  it("grows with commits, not tokens, and reads the log a fixed number of times", async () => {
    const small = await measure(20);
    const large = await measure(400);
    expect(small.deltas).toBe(20);
    expect(large.deltas).toBe(400);
    // Reads of the log: the same for 20 tokens as for 400 (catch-up only, no read per flush).
    expect(large.logReads).toBe(small.logReads);
    // A flush is one round trip (BEGIN, the batch, the doorbell and COMMIT pipelined on Postgres;
    // in process on PGlite); everything else is a fixed cost of the run.
    const fixed = (m: typeof small) => m.roundTrips - m.flushes - m.timed;
    expect(fixed(large)).toBeLessThanOrEqual(fixed(small));
    expect(large.transactions).toBe(large.flushes);
    console.info(`${backend}: 20 tokens -> ${JSON.stringify(small)}; 400 tokens -> ${JSON.stringify(large)}`);
  });

  it("a run's stream starts after two round trips, its admission's read and commit, and never reads the log", async () => {
    const { server, counts, close } = await countingServer(backend);
    try {
      await server.threadline.engine.idle();
      const history: unknown[] = [];
      // The thread's first run (the thread is created in its admission), then a second run on it
      // (admitted from the first run's checkpoint, which is at the log's end: nothing to fold).
      for (const [i, runId] of ["r1", "r2"].entries()) {
        const from = counts().trips.length;
        history.push({ id: `u${i}`, role: "user", content: "3" });
        // Only the new message (the user messages without their answers would be a stale copy).
        const frames = await (await postSse(`${server.url}/api/agents/default/run`, { threadId: "two-trips", runId, messages: history.slice(-1) })).done;
        await server.threadline.engine.idle();
        expect(frames[0]!.event.type).toBe("RUN_STARTED");
        const trips = counts().trips.slice(from).filter((t) => !isTimed(t));
        const firstWrite = trips.findIndex((t) => t === "batch" || t === "begin");
        // Before the admission's commit: one read (thread row, run id, checkpoint in one statement).
        expect(trips.slice(0, firstWrite)).toHaveLength(1);
        expect(trips[0]).toMatch(/join\s+\S+\.threads t on t\.thread_id = q\.thread_id/);
        // The log is read once in the whole run: by the executor's watch for other instances'
        // cancels (its stream and the run's fold read nothing).
        expect(trips.filter(isLogRead)).toHaveLength(1);
        const assistant = frames.filter((f) => f.event.type === "TEXT_MESSAGE_CONTENT").map((f) => String(f.event.delta)).join("");
        history.push({ id: `a${i}`, role: "assistant", content: assistant });
      }
    } finally {
      await close();
    }
  });

  it("a catch-up of a finished run reads a fixed number of statements whatever its tokens; ?replay=exact reads the log in pages", async () => {
    const { server, counts, close } = await countingServer(backend);
    try {
      await server.threadline.engine.idle();
      const catchUp = async (tokens: number) => {
        const threadId = `catch-up-${tokens}`;
        const live = await (await postSse(`${server.url}/api/agents/default/run`, { threadId, runId: "r", messages: [{ id: "m", role: "user", content: String(tokens) }] })).done;
        await server.threadline.engine.idle();
        const read = async (query: string) => {
          const from = counts().trips.length;
          const frames = await (await postSse(`${server.url}/api/agents/default/connect${query}`, { threadId }, { "Last-Event-ID": live[0]!.id! })).done;
          const trips = counts().trips.slice(from).filter((x) => !isTimed(x));
          return { frames: frames.length, trips: trips.length, logReads: trips.filter(isLogRead).length };
        };
        return { live: live.length, compacted: await read(""), exact: await read("?replay=exact") };
      };
      const small = await catchUp(100);
      const large = await catchUp(600);
      // The thread row, the count after the cursor, the checkpoint, the stretches, the log before
      // and after the answer's one stretch: the same six for 100 tokens as for 600.
      expect(large.compacted.trips).toBe(small.compacted.trips);
      expect(large.compacted.trips).toBe(6);
      expect(large.compacted.logReads).toBe(3); // the count after the cursor, the log before and after
      // One delta instead of 600, and the rest of the frames as they were.
      expect(large.compacted.frames).toBe(large.live - 1 - 599);
      // The exact log: pages of logPageSize events.
      expect(large.exact.frames).toBe(large.live - 1);
      expect(large.exact.logReads).toBe(1 + Math.ceil((600 + 10) / server.store.logPageSize));
      console.info(`${backend}: catch-up of 100 tokens ${JSON.stringify(small)}; of 600 ${JSON.stringify(large)}`);
    } finally {
      await close();
    }
  });

  it("admits runs started together on N threads with one read and one commit for all of them", async () => {
    const agent = defaultAgent({ planStepDelayMs: 20 });
    const flushes: FlushInfo[] = [];
    const counting: { counts?: StatementCounts } = {};
    const store = openStore(backend, testSchema(), {
      writer: { onFlush: (f) => flushes.push(f) },
      instrument: (db) => {
        const c = countingDb(db);
        counting.counts = c.counts;
        return c.db;
      },
    });
    const server = await startTestServer({ backend, llmUrl: url, store, agents: [agent] });
    try {
      await server.threadline.engine.idle();
      const n = 30;
      const from = counting.counts!.trips.length;
      flushes.length = 0;
      const started = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          server.threadline.engine.startRun(agent, { threadId: `burst-${i}`, runId: "1", messages: [{ id: "m", role: "user", content: "3" }], tools: [], context: [], state: {} }),
        ),
      );
      expect(started.every((s) => !s.queued && s.start?.events.at(-1)?.type === "workflow.started")).toBe(true);
      const trips = counting.counts!.trips.slice(from);
      // One read for all the admissions, then their one commit, before anything else wrote.
      expect(trips.filter((t) => /with ordinality as q\(thread_id, run_id, ord\)/.test(t))).toHaveLength(1);
      expect(flushes[0]).toMatchObject({ appends: n, threads: n, ok: true });
      await server.threadline.engine.idle();
      // Every admitted run went on to its end (this agent's turn ends waiting for the user).
      const statuses = await Promise.all(started.map((s) => store.getRun(s.threadId, s.runId)));
      expect(statuses.map((r) => r?.status)).toEqual(started.map(() => "waiting"));
    } finally {
      await server.close();
      await store.close();
    }
  });
});
