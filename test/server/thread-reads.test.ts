/**
 * Every thread stays readable (issue 30): a thread of large legal input (runs whose user message
 * is ~1 MB of incompressible text, under MAX_STRING_BYTES) reads back through every door in pages
 * bounded by bytes, not only by count (store.readPage, LOG_PAGE_BYTES): GET, /events (whose JSON
 * page stops at the bytes and says `next`), connect as a reload and as a replay. And a read that
 * fails says why: connect on an existing thread whose checkpoint cannot be read (its table gone)
 * answers 503 with the reason, never the empty 200 an unknown thread gets. Speed is measured in
 * test/bench/big-thread.bench.ts, not here.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOG_PAGE_BYTES } from "../../server/store/live.ts";
import { pgliteBackend, postgresBackend, type StoreBackend } from "../store/backends.ts";
import { backends, startTestServer, testSchema, type TestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";

const RUNS = 6;
/** Base64 of random bytes: what an image's data is like, and what no compression shrinks. */
const bigText = () => randomBytes(700 * 1024).toString("base64"); // ~0.93 MiB

describe.each(backends())("reading a thread of large legal input on %s", (backend) => {
  let server: TestServer;
  let db: StoreBackend;
  let schema: string;
  const threadId = `big-${Date.now()}`;
  beforeAll(async () => {
    db = backend === "postgres" ? postgresBackend(process.env.DATABASE_URL!) : pgliteBackend();
    schema = testSchema();
    server = await startTestServer({ backend, store: db.open(schema) });
    for (let r = 0; r < RUNS; r++) {
      const run = await postSse(`${server.url}/api/agents/default/run`, { threadId, runId: `r${r}`, messages: [{ id: `u${r}`, role: "user", content: bigText() }], state: {}, tools: [], context: [] });
      expect(run.status).toBe(200);
      await run.done;
    }
  }, 180_000);
  afterAll(async () => {
    await server?.close();
    await server?.store.close();
    await db?.dropSchema(schema);
    await db?.dispose();
  });

  it("GET /events pages stop at the page's bytes and name the next cursor; together they are the whole log", async () => {
    const log = await server.store.read(threadId);
    let after = 0;
    const seen: number[] = [];
    let pages = 0;
    for (;;) {
      const res = await fetch(`${server.url}/api/threads/${threadId}/events?after=${after}&limit=1000`);
      expect(res.status).toBe(200);
      const page = (await res.json()) as { events: { seq: number; type: string; data: unknown }[]; next: number | null };
      pages++;
      seen.push(...page.events.map((e) => e.seq));
      // A page holds the big messages that fit in its bytes, and one more at most (the first).
      const bigs = page.events.filter((e) => JSON.stringify(e.data).length > 900 * 1024).length;
      expect(bigs).toBeLessThanOrEqual(Math.ceil(LOG_PAGE_BYTES / (900 * 1024)) + 1);
      if (page.next === null) break;
      expect(page.next).toBe(page.events.at(-1)!.seq);
      after = page.next;
    }
    expect(seen).toEqual(log.map((e) => e.seq));
    // Fewer than 1,000 events in all, yet more than one page: the bytes bounded them, not the count.
    expect(log.length).toBeLessThan(1000);
    expect(pages).toBeGreaterThan(1);
  });

  it("GET, connect (reload) and connect from the first id all answer the whole conversation", async () => {
    const res = await fetch(`${server.url}/api/threads/${threadId}`);
    expect(res.status).toBe(200);
    const thread = (await res.json()) as { messages: { role: string; content: string }[] };
    expect(thread.messages.filter((m) => m.role === "user")).toHaveLength(RUNS);
    const reload = await (await postSse(`${server.url}/api/agents/default/connect`, { threadId })).done;
    const snapshot = reload.find((f) => f.event.type === "MESSAGES_SNAPSHOT")!.event as unknown as { messages: { role: string }[] };
    expect(snapshot.messages.filter((m) => m.role === "user")).toHaveLength(RUNS);
    const replay = await (await postSse(`${server.url}/api/agents/default/connect`, { threadId, lastSeenEventId: "1" })).done;
    expect(replay.filter((f) => f.event.type === "RUN_FINISHED")).toHaveLength(RUNS);
  });

  it("connect on an existing thread whose checkpoint cannot be read answers 503 with the reason, not an empty 200", async () => {
    const other = `unreadable-${Date.now()}`;
    await (await postSse(`${server.url}/api/agents/default/run`, { threadId: other, runId: "r1", messages: [{ id: "u1", role: "user", content: "hello" }], state: {}, tools: [], context: [] })).done;
    // The checkpoint's table renamed away: the thread row is there, its checkpoint is not readable.
    await db.sql(`alter table "${schema}".checkpoint_parts rename to checkpoint_parts_gone`);
    try {
      const res = await fetch(`${server.url}/api/agents/default/connect`, { method: "POST", headers: { "content-type": "application/json", accept: "text/event-stream" }, body: JSON.stringify({ threadId: other }) });
      expect(res.status).toBe(503);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("STORE_NOT_READY");
      expect(body.error.message).toMatch(/checkpoint_parts/);
    } finally {
      await db.sql(`alter table "${schema}".checkpoint_parts_gone rename to checkpoint_parts`);
    }
  });
});
