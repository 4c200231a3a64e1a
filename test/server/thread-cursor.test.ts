/**
 * The thread list's page cursor (server/store/thread-cursor.ts): any string is either a cursor
 * or a 400 INVALID_QUERY naming `cursor`, never a throw and never a statement. The cursors that
 * used to reach Postgres and come back as 500s (a 19-digit time, a NUL in the thread id) are
 * refused before the page query, on both backends; cursors the store writes, at the bound,
 * page on.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidCursorError } from "../../server/store/errors.ts";
import { encodeThreadCursor, THREAD_CURSOR_MAX_CHARS, THREAD_CURSOR_MAX_US, ThreadCursorSchema } from "../../server/store/thread-cursor.ts";
import { countingDb, type StatementCounts } from "../support/counting-db.ts";
import { backends, openStore, startTestServer, testSchema, type TestServer } from "../support/server.ts";
import { postSse } from "../support/sse-client.ts";
import { send } from "./raw-http.ts";

const cursorOf = (us: string, threadId: string) => encodeThreadCursor({ updatedAtUs: us, threadId });
const raw = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** Cursors no page could have ended at, each of which used to be a 500 or must never become one. */
const HOSTILE: [string, string][] = [
  ["a 19-digit time (over bigint)", cursorOf("9999999999999999999", "a1")],
  ["bigint's largest value", cursorOf("9223372036854775807", "a1")],
  ["2^53, one over the bound", cursorOf(String(THREAD_CURSOR_MAX_US + 1), "a1")],
  ["a negative time", cursorOf("-1", "a1")],
  ["a NUL in the thread id", cursorOf("1700000000000000", "a\u0000b")],
  ["a lone surrogate in the thread id", cursorOf("1700000000000000", "a\uD800")],
  ["an empty thread id", cursorOf("1700000000000000", "")],
  ["a number instead of text", raw([1700000000000000, "a1"])],
  ["three elements", raw(["1", "a1", "x"])],
  ["not JSON", Buffer.from("not json").toString("base64url")],
  ["not base64url", "abc+/="],
  ["a NUL", "\u0000"],
  ["one character over the bound", "A".repeat(THREAD_CURSOR_MAX_CHARS + 1)],
];

describe("ThreadCursorSchema", () => {
  it("any string is a cursor or issues, never a throw", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary", maxLength: 60 }), fc.base64String({ maxLength: 200 }).map((s) => s.replace(/=+$/, ""))), (s) => {
        const r = ThreadCursorSchema.safeParse(s);
        if (!r.success) expect(r.error.issues.length).toBeGreaterThan(0);
        else expect(BigInt(r.data.updatedAtUs)).toBeLessThanOrEqual(BigInt(THREAD_CURSOR_MAX_US));
      }),
      { numRuns: 2_000 },
    );
  });

  it("every cursor the store writes reads back as its key, up to the bounds", () => {
    const storable = fc.string({ unit: "grapheme", minLength: 1, maxLength: 200 }).filter((s) => !s.includes("\u0000"));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: THREAD_CURSOR_MAX_US }), storable, (us, threadId) => {
        const key = { updatedAtUs: String(us), threadId };
        expect(ThreadCursorSchema.parse(encodeThreadCursor(key))).toEqual(key);
      }),
      { numRuns: 1_000 },
    );
    // The longest: the largest time and 200 UTF-16 units of 3 UTF-8 bytes each.
    const longest = cursorOf(String(THREAD_CURSOR_MAX_US), "€".repeat(200));
    expect(longest.length).toBeLessThanOrEqual(THREAD_CURSOR_MAX_CHARS);
    expect(ThreadCursorSchema.safeParse(longest).success).toBe(true);
  });

  it.each(HOSTILE)("refuses %s", (_what, cursor) => {
    expect(ThreadCursorSchema.safeParse(cursor).success).toBe(false);
  });
});

describe.each(backends())("GET /api/threads?cursor= on %s", (backend) => {
  let server: TestServer;
  const counting: { counts?: StatementCounts } = {};
  /** Page queries the store sent (the one statement a cursor reaches). */
  const pageQueries = () => counting.counts!.trips.filter((t) => /order by updated_at desc/i.test(t)).length;

  beforeAll(async () => {
    const store = openStore(backend, testSchema(), {
      instrument: (db) => {
        const c = countingDb(db);
        counting.counts = c.counts;
        return c.db;
      },
    });
    server = await startTestServer({ backend, store });
    for (const id of ["c1", "c2", "c3"]) {
      await (await postSse(`${server.url}/api/agents/default/run`, { threadId: id, runId: `${id}-r`, messages: [{ id: `${id}-u`, role: "user", content: "hi" }] })).done;
    }
  });
  afterAll(async () => {
    await server?.close();
    await server?.store.close();
  });

  it.each(HOSTILE)("%s: 400 INVALID_QUERY naming the cursor, no page read", async (_what, cursor) => {
    const before = pageQueries();
    const res = await send(server.url, { method: "GET", path: `/api/threads?cursor=${encodeURIComponent(cursor)}` });
    expect(res.status, res.text.slice(0, 300)).toBe(400);
    expect(["INVALID_QUERY", "UNSAFE_TEXT"]).toContain(res.json?.error?.code);
    if (res.json?.error?.code === "INVALID_QUERY") {
      expect(res.json.error.issues).toEqual([{ path: "cursor", message: expect.stringMatching(/`next` value of a previous page/) }]);
    }
    expect(res.text).not.toMatch(/bigint|out of range|invalid byte sequence|0x00/i);
    expect(pageQueries()).toBe(before);
  });

  it("the store itself refuses them too (an application calling listThreads), before any statement", async () => {
    const before = pageQueries();
    for (const [what, cursor] of HOSTILE) {
      await expect(server.store.listThreads({ before: cursor }), what).rejects.toBeInstanceOf(InvalidCursorError);
    }
    expect(pageQueries()).toBe(before);
  });

  it("its own cursors page on, and a cursor at the time bound is a page (empty of newer threads)", async () => {
    const list = async (query: string) => {
      const res = await send(server.url, { method: "GET", path: `/api/threads?${query}` });
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      const page = res.json as { threads: { threadId: string }[]; next: string | null };
      return { ids: page.threads.map((t) => t.threadId), next: page.next };
    };
    const first = await list("limit=2");
    expect(first.ids).toEqual(["c3", "c2"]);
    expect((await list(`limit=2&cursor=${encodeURIComponent(first.next!)}`)).ids).toEqual(["c1"]);
    expect((await list(`cursor=${cursorOf(String(THREAD_CURSOR_MAX_US), "€".repeat(200))}`)).ids).toEqual(["c3", "c2", "c1"]);
    const atZero = await send(server.url, { method: "GET", path: `/api/threads?cursor=${cursorOf("0", "a")}` });
    expect(atZero.json).toEqual({ threads: [], next: null });
  });
});
