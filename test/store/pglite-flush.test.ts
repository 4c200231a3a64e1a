/**
 * A flush on PGlite (pglite-prepared.ts, pglite.ts): one call into the WASM Postgres for the
 * whole transaction, and the appends of one turn of the event loop in one flush, microtasks
 * apart or not. Counted on a real PGlite by wrapping its execProtocol, the one door every
 * protocol message goes through.
 */
import type { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgliteStore } from "../../server/store/pglite.ts";
import type { EventStore } from "../../server/store/types.ts";
import type { FlushInfo } from "../../server/store/writer.ts";
import { testPglite } from "../support/pglite.ts";
import { ev } from "./fixtures.ts";

let pglite: PGlite;
let store: EventStore;
let calls = 0;
const flushes: FlushInfo[] = [];

beforeAll(async () => {
  pglite = testPglite();
  const exec = pglite.execProtocol.bind(pglite);
  pglite.execProtocol = (message, opts) => {
    calls++;
    return exec(message, opts);
  };
  store = createPgliteStore({ pglite, writer: { onFlush: (f) => flushes.push(f) } });
  await store.migrate();
}, 60_000);

afterAll(async () => {
  await store.close();
  await pglite.close();
});

describe("a flush on PGlite", () => {
  it("is one call into the WASM Postgres, its transaction included, once its statements are prepared", async () => {
    const threads = ["a", "b", "c", "d", "e"];
    for (const t of threads) await store.ensureThread(t, "agent");
    // The first flush prepares the batch statement and the doorbell (a call each).
    await store.append("a", [ev.userMessage("warm")]);
    calls = 0;
    flushes.length = 0;
    const written = await Promise.all(threads.map((t) => store.append(t, [ev.userMessage(`to ${t}`), ev.userMessage("again")])));
    expect(flushes).toHaveLength(1);
    expect(flushes[0]).toMatchObject({ appends: 5, events: 10, threads: 5, ok: true });
    expect(calls).toBe(1);
    expect(written.map((w) => w.map((e) => e.seq))).toEqual([[2, 3], [1, 2], [1, 2], [1, 2], [1, 2]]);
    expect((await store.read("c")).map((e) => e.seq)).toEqual([1, 2]);
  });

  it("writes nothing of a batch the database refuses, and the next flush goes on", async () => {
    await store.ensureThread("bad", "agent");
    await store.ensureThread("good", "agent");
    const before = (await store.read("good")).length;
    // \u0000 is valid JSON text but jsonb refuses it: the batch fails inside the database, and
    // its appends are then written one by one (flush.ts), so only the bad one fails.
    const [bad, good] = await Promise.allSettled([store.append("bad", [ev.userMessage("nul \u0000 here")]), store.append("good", [ev.userMessage("fine")])]);
    expect(bad.status).toBe("rejected");
    expect(good.status).toBe("fulfilled");
    expect(await store.read("bad")).toEqual([]);
    expect((await store.read("good")).length).toBe(before + 1);
    // No transaction was left open by the failed pipeline: two statements are two transactions,
    // so now() (the transaction's start) moves between them.
    const at = async () => (await pglite.query<{ t: string }>("select now()::text as t")).rows[0]!.t;
    const first = await at();
    await pglite.query("select pg_sleep(0.002)");
    expect(await at()).not.toBe(first);
  });

  it("takes the appends of one turn of the event loop, microtasks apart, into one flush", async () => {
    await store.ensureThread("turn", "agent");
    flushes.length = 0;
    const pending: Promise<unknown>[] = [];
    for (let i = 0; i < 5; i++) {
      pending.push(store.append("turn", [ev.userMessage(`m${i}`)]));
      // Microtasks between appends: each would have been a flush of its own after a microtask.
      for (let k = 0; k < 20; k++) await Promise.resolve();
    }
    await Promise.all(pending);
    expect(flushes.map((f) => f.appends)).toEqual([5]);
  });
});
