/**
 * The live feed's algorithm (server/store/live.ts) against an in-memory log: whatever the mix of
 * hand-overs from this process, rings from other processes, buffer overflows and a slow consumer,
 * a follower yields exactly the log after its cursor, in order, with no gap and no duplicate, and
 * reads the log only to catch up, after a ring, or after an overflow.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../../protocol/events.ts";
import { follow, LiveFeed } from "../../server/store/live.ts";

const T = "thread";
const event = (seq: number): StoredEvent =>
  ({ type: "text.delta", data: { runId: "r", messageId: "m", delta: String(seq) }, threadId: T, seq, runId: "r", at: seq }) as StoredEvent;

/** One step of the world: this process commits n events, another process does, or the consumer pulls. */
type Step = { kind: "local"; n: number } | { kind: "foreign"; n: number } | { kind: "pull" };

function world(capacity: number, pageSize: number) {
  const log: StoredEvent[] = [];
  const feed = new LiveFeed(capacity);
  let reads = 0;
  const commit = (n: number, local: boolean) => {
    const events = Array.from({ length: n }, (_, i) => event(log.length + i + 1));
    log.push(...events);
    if (local) feed.publish(new Map([[T, events]]));
    else feed.wake([T]);
  };
  const deps = {
    feed,
    pageSize,
    read: async (_t: string, after: number, limit: number) => {
      reads++;
      const rest = log.filter((e) => e.seq > after);
      return { events: rest.slice(0, limit), more: rest.length > limit };
    },
    listening: async () => {},
    closed: () => false,
  };
  return { log, feed, commit, deps, reads: () => reads };
}

describe("live feed", () => {
  it("yields exactly the log after the cursor, whatever commits, rings, overflows and pauses happen", async () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant("local" as const), n: fc.integer({ min: 1, max: 12 }) }),
      fc.record({ kind: fc.constant("foreign" as const), n: fc.integer({ min: 1, max: 5 }) }),
      fc.constant({ kind: "pull" as const }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 60 }),
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 0, max: 5 }),
        async (steps: Step[], capacity, pageSize, preexisting, behind) => {
          const w = world(capacity, pageSize);
          w.commit(preexisting, true);
          // At the head (behind 0) the follower starts current, without a read.
          const after = Math.max(0, preexisting - behind);
          const ac = new AbortController();
          const it = follow(w.deps, T, after, ac.signal)[Symbol.asyncIterator]();
          const got: number[] = [];
          const pull = async () => {
            const r = await it.next();
            if (!r.done) got.push(...r.value.map((e) => e.seq));
          };
          for (const s of steps) {
            if (s.kind === "pull") {
              if (got.length + after < w.log.length) await pull();
            } else w.commit(s.n, s.kind === "local");
          }
          while (got.length + after < w.log.length) await pull();
          ac.abort();
          await it.return(undefined);
          expect(got).toEqual(w.log.slice(after).map((e) => e.seq));
          expect(w.feed.size).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a follower that keeps up with this process's commits reads the log once, to catch up", async () => {
    const w = world(64, 100);
    w.commit(10, true);
    const ac = new AbortController();
    const it = follow(w.deps, T, 0, ac.signal)[Symbol.asyncIterator]();
    expect((await it.next()).value).toHaveLength(10);
    for (let i = 0; i < 50; i++) {
      w.commit(3, true);
      expect(((await it.next()).value as StoredEvent[]).map((e) => e.seq)).toEqual([11 + 3 * i, 12 + 3 * i, 13 + 3 * i]);
    }
    expect(w.reads()).toBe(1);
    ac.abort();
    await it.return(undefined);
  });

  it("a follower whose buffer overflows drops it and reads the log after its cursor", async () => {
    const w = world(8, 100);
    const ac = new AbortController();
    const it = follow(w.deps, T, 0, ac.signal)[Symbol.asyncIterator]();
    w.commit(1, true);
    expect((await it.next()).value).toHaveLength(1);
    const readsBefore = w.reads();
    for (let i = 0; i < 20; i++) w.commit(1, true); // the consumer does not pull meanwhile
    const seqs: number[] = [];
    while (seqs.length < 20) seqs.push(...((await it.next()).value as StoredEvent[]).map((e) => e.seq));
    expect(seqs).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    expect(w.reads()).toBe(readsBefore + 1);
    ac.abort();
    await it.return(undefined);
  });

  it("a follower that starts at the head this process handed over starts current: no read at all", async () => {
    const w = world(64, 100);
    w.commit(10, true);
    const ac = new AbortController();
    const it = follow(w.deps, T, 10, ac.signal)[Symbol.asyncIterator]();
    const next = it.next();
    w.commit(2, true);
    expect(((await next).value as StoredEvent[]).map((e) => e.seq)).toEqual([11, 12]);
    expect(w.reads()).toBe(0);
    ac.abort();
    await it.return(undefined);
  });

  it("one behind the head, after a ring, or after a delete, the follower reads first", async () => {
    for (const setup of [
      (w: ReturnType<typeof world>) => ({ after: 9, w }),
      (w: ReturnType<typeof world>) => {
        w.feed.wake([T]);
        return { after: 10, w };
      },
      (w: ReturnType<typeof world>) => {
        w.feed.wakeAll();
        return { after: 10, w };
      },
      (w: ReturnType<typeof world>) => {
        w.feed.forget(T);
        return { after: 10, w };
      },
    ]) {
      const base = world(64, 100);
      base.commit(10, true);
      const { after, w } = setup(base);
      const ac = new AbortController();
      const it = follow(w.deps, T, after, ac.signal)[Symbol.asyncIterator]();
      const next = it.next();
      w.commit(1, true);
      expect(((await next).value as StoredEvent[]).at(-1)!.seq).toBeGreaterThan(after);
      expect(w.reads()).toBe(1);
      ac.abort();
      await it.return(undefined);
    }
  });

  it("remembers the heads of at most maxHeads threads, forgetting the oldest", () => {
    const feed = new LiveFeed(8, 3);
    for (const id of ["a", "b", "c", "d"]) feed.publish(new Map([[id, [{ ...event(1), threadId: id }]]]));
    expect(feed.heads).toBe(3);
    // "a" was forgotten: a follower at its head starts with a read; "d" is remembered.
    const a = feed.subscribe("a", 1);
    const d = feed.subscribe("d", 1);
    expect(a.sub.take()).toBeNull();
    expect(d.sub.take()).toEqual([]);
    a.unsubscribe();
    d.unsubscribe();
  });
});
