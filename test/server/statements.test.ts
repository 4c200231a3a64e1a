/**
 * What a run costs the database. One run of N tokens issues O(commits) statements: the writer's
 * flushes, one round trip each, and a constant number of reads and lease statements, never one
 * per token; and a
 * stream that keeps up is fed from the commit, so it reads the log only to catch up, whatever N.
 */
import { LLMock } from "@copilotkit/aimock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, openStore, startTestServer, testSchema } from "../support/server.ts";
import { countingDb, type StatementCounts } from "../support/counting-db.ts";
import { postSse } from "../support/sse-client.ts";


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

describe.each(backends())("statements per run on %s", (backend) => {
  async function measure(tokens: number): Promise<StatementCounts & { flushes: number; deltas: number }> {
    let flushes = 0;
    const counting: { counts?: StatementCounts } = {};
    const store = openStore(backend, testSchema(), {
      writer: { onFlush: (f) => void (f.ok && flushes++) },
      instrument: (db) => {
        const c = countingDb(db);
        counting.counts = c.counts;
        return c.db;
      },
    });
    const server = await startTestServer({ backend, llmUrl: url, store });
    try {
      // Warm up (migrations, the recovery sweep at start), then count one run alone.
      await (await postSse(`${server.url}/api/agents/default/run`, { threadId: "warm", runId: "warm", messages: [{ id: "w", role: "user", content: "2" }] })).done;
      await server.threadline.engine.idle();
      const before = { ...counting.counts! };
      flushes = 0;
      const frames = await (await postSse(`${server.url}/api/agents/default/run`, {
        threadId: `t-${tokens}`, runId: `r-${tokens}`, messages: [{ id: "m", role: "user", content: String(tokens) }],
      })).done;
      await server.threadline.engine.idle();
      const after = counting.counts!;
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
      await server.close();
      await store.close();
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
});
