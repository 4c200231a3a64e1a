/**
 * Every thread stays readable (issue 30): a thread of 30 MB of legal input (8 runs, each a user
 * message of four ~0.95 MB text parts of incompressible text: MAX_STRING_BYTES each, under the
 * 4 MiB body) reads back completely and correctly through every door: GET, /events (whose JSON
 * pages stop at LOG_PAGE_BYTES and say `next`), connect as a reload and as a replay from the first
 * id; every text is compared with what was sent. And a read that fails says why: connect on an
 * existing thread whose checkpoint cannot be read (its table gone) answers 503 with the reason,
 * never the empty 200 an unknown thread gets. Speed is measured in
 * test/bench/big-thread.bench.ts, not here.
 */
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOG_PAGE_BYTES } from "../../server/store/live.ts";
import { pgliteBackend, postgresBackend, type StoreBackend } from "../store/backends.ts";
import { backends, startTestServer, testSchema, type TestServer } from "../support/server.ts";
import { parseSse, postSse } from "../support/sse-client.ts";

const RUNS = 8;
const PARTS = 4;
/** Base64 of random bytes: what an image's data is like, and what no compression shrinks. */
const bigText = () => randomBytes(712 * 1024).toString("base64"); // 972,800 chars

interface Message {
  role: string;
  content?: string | { type: string; text?: string }[];
}
/** Each user message's texts as digests, in order: a mismatch prints lines, not megabytes. */
const userTexts = (messages: readonly Message[]) =>
  messages
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? [m.content] : (m.content ?? []).map((c) => c.text ?? `<${c.type}>`)).map(digest));
const digest = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);

describe.each(backends())("reading a thread of large legal input on %s", (backend) => {
  let server: TestServer;
  let db: StoreBackend;
  let schema: string;
  const threadId = `big-${Date.now()}`;
  const sent: string[][] = [];
  beforeAll(async () => {
    db = backend === "postgres" ? postgresBackend(process.env.DATABASE_URL!) : pgliteBackend();
    schema = testSchema();
    server = await startTestServer({ backend, store: db.open(schema) });
    for (let r = 0; r < RUNS; r++) {
      const texts = Array.from({ length: PARTS }, bigText);
      sent.push(texts.map(digest));
      const content = texts.map((text) => ({ type: "text", text }));
      const run = await fetch(`${server.url}/api/agents/default/run`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ threadId, runId: `r${r}`, messages: [{ id: `u${r}`, role: "user", content }], state: {}, tools: [], context: [] }),
      });
      expect(run.status).toBe(200);
      await run.text();
    }
    expect(RUNS * PARTS * bigText().length).toBeGreaterThan(30e6);
  }, 300_000);
  afterAll(async () => {
    await server?.close();
    await server?.store.close();
    await db?.dropSchema(schema);
    await db?.dispose();
  });

  it("GET /events pages stop at the page's bytes and name the next cursor; together they are the whole log, every text as sent", async () => {
    const log = await server.store.read(threadId);
    let after = 0;
    const seen: number[] = [];
    const messages: Message[] = [];
    let pages = 0;
    for (;;) {
      const res = await fetch(`${server.url}/api/threads/${threadId}/events?after=${after}&limit=1000`);
      expect(res.status).toBe(200);
      const page = (await res.json()) as { events: { seq: number; type: string; data: { message?: Message } }[]; next: number | null };
      pages++;
      seen.push(...page.events.map((e) => e.seq));
      for (const e of page.events) if (e.type === "message.appended") messages.push(e.data.message!);
      // A page holds the big events that fit in its bytes, and one more at most (the first).
      const bytes = page.events.map((e) => JSON.stringify(e.data).length);
      expect(bytes.reduce((n, b) => n + b, 0) - Math.max(...bytes)).toBeLessThanOrEqual(LOG_PAGE_BYTES);
      if (page.next === null) break;
      expect(page.next).toBe(page.events.at(-1)!.seq);
      after = page.next;
    }
    expect(seen).toEqual(log.map((e) => e.seq));
    expect(userTexts(messages)).toEqual(sent);
    // Fewer than 1,000 events in all, yet more than one page: the bytes bounded them, not the count.
    expect(log.length).toBeLessThan(1000);
    expect(pages).toBeGreaterThan(RUNS / 2);
  });

  it("GET, connect (reload) and connect from the first id each answer the whole conversation, every text as sent", async () => {
    const res = await fetch(`${server.url}/api/threads/${threadId}`);
    expect(res.status).toBe(200);
    const thread = (await res.json()) as { messages: Message[] };
    expect(userTexts(thread.messages)).toEqual(sent);
    expect(thread.messages.filter((m) => m.role === "assistant").length).toBeGreaterThanOrEqual(RUNS);

    const connect = async (headers: Record<string, string> = {}) => {
      const res = await fetch(`${server.url}/api/agents/default/connect`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
        body: JSON.stringify({ threadId }),
      });
      expect(res.status).toBe(200);
      return parseSse(await res.text()).frames.map((f) => f.event);
    };
    const reload = await connect();
    expect(reload.map((e) => e.type)).toEqual(["RUN_STARTED", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT", "RUN_FINISHED"]);
    const snapshot = reload[1] as unknown as { messages: Message[] };
    expect(userTexts(snapshot.messages)).toEqual(sent);
    expect(snapshot.messages.map((m) => m.role)).toEqual(thread.messages.map((m) => m.role));

    // A replay from the first id: each run again, its RUN_STARTED carrying the run's input.
    const replay = await connect({ "Last-Event-ID": "1" });
    expect(replay.filter((e) => e.type === "RUN_FINISHED")).toHaveLength(RUNS);
    const inputs = replay.filter((e) => e.type === "RUN_STARTED").flatMap((e) => (e as unknown as { input: { messages: Message[] } }).input.messages);
    expect(userTexts(inputs)).toEqual(sent);
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
