/** Contract, part 1: migrations, the append path (group commit, sequences, status), the live feed. */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { WorkflowEvent } from "../../protocol/events.ts";
import { latestMigrationId } from "../../server/store/migrate.ts";
import { AppendError, StoreClosedError, StoreNotReadyError, ThreadNotFoundError } from "../../server/store/errors.ts";
import type { ContractContext } from "./contract.ts";
import { deltaOf, ev, followUntil, randomId, range } from "./fixtures.ts";

export function logContract(ctx: ContractContext): void {
  async function newThread(agentId = "agent") {
    const threadId = randomId("t");
    await ctx.store().ensureThread(threadId, agentId);
    return threadId;
  }

  describe("migrations", () => {
    it("ping fails before migrate and passes after", async () => {
      const store = ctx.open(ctx.freshSchema());
      await expect(store.ping()).rejects.toBeInstanceOf(StoreNotReadyError);
      await store.migrate();
      await store.migrate(); // a second run is a no-op
      await expect(store.ping()).resolves.toBeUndefined();
    });

    it("two migrators on a fresh schema both succeed, each migration applied once", async () => {
      const schema = ctx.freshSchema();
      const [a, b, c] = [ctx.open(schema), ctx.open(schema), ctx.open(schema)];
      await Promise.all([a.migrate(), b.migrate(), c.migrate()]);
      await Promise.all([a.ping(), b.ping(), c.ping()]);
      const rows = await ctx.backend.sql<{ id: number }>(`select id from "${schema}".migrations order by id`);
      expect(rows.map((r) => r.id)).toEqual(range(1, latestMigrationId()));
    });
  });

  describe("append and read", () => {
    it("readPage holds a page to its count and to LOG_PAGE_BYTES of stored size, says when more follow, and pages through the whole log", async () => {
      const store = ctx.store();
      const threadId = await newThread();
      // Incompressible text (base64 of random bytes), ~1.4 MB a message: three are past the page's bytes.
      const big = (i: number) => ({ type: "message.appended", data: { runId: "r", source: "input", message: { id: `u${i}`, role: "user", content: randomBytes(1024 * 1024).toString("base64") } } }) as WorkflowEvent;
      for (let i = 0; i < 7; i++) await store.append(threadId, [big(i), ev.delta("r", `small ${i}`)]);
      const all = await store.read(threadId);
      expect(all).toHaveLength(14);
      const pages: { seqs: number[]; more: boolean }[] = [];
      for (let after = 0; ; ) {
        const page = await store.readPage(threadId, { after });
        pages.push({ seqs: page.events.map((e) => e.seq), more: page.more });
        if (!page.more) break;
        after = page.events.at(-1)!.seq;
      }
      expect(pages.flatMap((p) => p.seqs)).toEqual(all.map((e) => e.seq));
      // Bytes bound every page: at most one big message past the first event, so 2-3 big ones in 4 MiB.
      for (const p of pages) {
        const bigs = p.seqs.filter((seq) => all.find((e) => e.seq === seq)!.type === "message.appended").length;
        expect(bigs).toBeLessThanOrEqual(3);
      }
      expect(pages.length).toBeGreaterThanOrEqual(3);
      expect(pages.at(-1)!.more).toBe(false);
      // The count bounds it too, and a page that ends at the count says more follow.
      expect(await store.readPage(threadId, { after: 0, limit: 1 })).toMatchObject({ events: [{ seq: all[0]!.seq }], more: true });
      // A first event larger than the bound still comes (alone): a reader always moves on.
      const huge = await newThread();
      await store.append(huge, [{ ...big(0), data: { ...(big(0).data as object), message: { id: "h", role: "user", content: randomBytes(4 * 1024 * 1024).toString("base64") } } } as WorkflowEvent]);
      expect((await store.readPage(huge, { after: 0 })).events).toHaveLength(1);
      expect(await store.readPage(huge, { after: 1 })).toEqual({ events: [], more: false });
    }, 60_000);

    it("each append resolves with its own events only, also when a flush holds several of one thread", async () => {
      const store = ctx.store();
      const threadId = await newThread();
      const [a, b, c] = await Promise.all([
        store.append(threadId, [ev.delta("r", "a1"), ev.delta("r", "a2")]),
        store.append(threadId, [ev.delta("r", "b1")]),
        store.append(threadId, [ev.delta("r", "c1"), ev.delta("r", "c2")]),
      ]);
      expect([a, b, c].map((events) => events.map((e) => e.seq))).toEqual([[1, 2], [3], [4, 5]]);
    });

    it("stores each event's data as sent, in order, when one flush carries the events of several threads", async () => {
      const store = ctx.store();
      const [one, two] = [await newThread(), await newThread()];
      // What the batch's data column must carry through its encoding untouched: quotes,
      // backslashes, newlines, non-ASCII, JSON inside a string, nesting.
      const texts = ['say "hi"', "back\\slash \\\"", "line\nbreak\ttab", "é 中文 🎉", '{"not":"parsed"}', "[1,2]", ""];
      const [a, b] = await Promise.all([
        store.append(one, texts.map((t) => ev.delta("r", t))),
        store.append(two, [...texts].reverse().map((t) => ev.delta("r", t))),
      ]);
      expect(a!.map(deltaOf)).toEqual(texts);
      expect(b!.map(deltaOf)).toEqual([...texts].reverse());
      expect((await store.read(one)).map(deltaOf)).toEqual(texts);
      expect((await store.read(two)).map(deltaOf)).toEqual([...texts].reverse());
      const nested = { runId: "r", messageId: "m", delta: "x", extra: { list: [1, "two", { three: null }], flag: true } };
      await store.append(one, [{ type: "text.delta", data: nested } as never]);
      expect((await store.read(one, { after: texts.length }))[0]!.data).toEqual(nested);
    });

    it("ensureThread creates once", async () => {
      const threadId = randomId("t");
      const first = await ctx.store().ensureThread(threadId, "agent-a");
      expect(first.created).toBe(true);
      expect(first.thread).toMatchObject({ threadId, agentId: "agent-a", status: "PENDING", lastSeq: 0, activeRunId: null });
      const again = await ctx.peer().ensureThread(threadId, "agent-a");
      expect(again).toEqual({ thread: first.thread, created: false });
    });

    it("appends, then reads after a cursor, in order, with limits", async () => {
      const threadId = await newThread();
      const appended = await ctx.store().append(threadId, [ev.threadCreated(), ev.userMessage("hi"), ev.delta("r1", "a")]);
      expect(appended.map((e) => e.seq)).toEqual([1, 2, 3]);
      expect(appended[2]).toMatchObject({ threadId, runId: "r1", type: "text.delta", data: { delta: "a" } });
      expect(Number.isInteger(appended[0]!.at)).toBe(true);

      const more = await ctx.store().append(threadId, [ev.delta("r1", "b")]);
      expect(more.map((e) => e.seq)).toEqual([4]);

      expect(await ctx.peer().read(threadId)).toEqual([...appended, ...more]);
      expect((await ctx.store().read(threadId, { after: 2 })).map((e) => e.seq)).toEqual([3, 4]);
      expect((await ctx.store().read(threadId, { after: 1, limit: 2 })).map((e) => e.seq)).toEqual([2, 3]);
      expect(await ctx.store().read(threadId, { after: 4 })).toEqual([]);
      expect((await ctx.store().getThread(threadId))?.lastSeq).toBe(4);
    });

    it("counts the events after a cursor and names the last seq, without reading them", async () => {
      const threadId = await newThread();
      expect(await ctx.store().countAfter(threadId, 0)).toEqual({ count: 0, lastSeq: 0 });
      await ctx.store().append(threadId, [ev.threadCreated(), ev.userMessage("hi"), ev.delta("r1", "a"), ev.delta("r1", "b")]);
      expect(await ctx.peer().countAfter(threadId, 0)).toEqual({ count: 4, lastSeq: 4 });
      expect(await ctx.store().countAfter(threadId, 2)).toEqual({ count: 2, lastSeq: 4 });
      expect(await ctx.store().countAfter(threadId, 4)).toEqual({ count: 0, lastSeq: 4 });
      expect(await ctx.store().countAfter(threadId, 9)).toEqual({ count: 0, lastSeq: 9 });
      expect(await ctx.store().countAfter("no-such-thread", 3)).toEqual({ count: 0, lastSeq: 3 });
    });

    it("commits thread status, active run and run rows with the events", async () => {
      const store = ctx.store();
      const threadId = await newThread();
      await store.append(threadId, [ev.threadCreated(), ev.runAccepted("run-1")]);
      expect(await store.getThread(threadId)).toMatchObject({ status: "PENDING", activeRunId: "run-1" });
      expect(await store.getRun(threadId, "run-1")).toMatchObject({ threadId, status: "running", input: { runId: "run-1" } });

      await store.append(threadId, [ev.started("run-1"), ev.delta("run-1", "x")]);
      expect(await store.getThread(threadId)).toMatchObject({ status: "RUNNING", activeRunId: "run-1" });

      await store.append(threadId, [ev.suspended("run-1")]);
      expect(await store.getThread(threadId)).toMatchObject({ status: "WAITING", activeRunId: null });
      expect((await store.getRun(threadId, "run-1"))?.status).toBe("waiting");

      // several transitions in one append: the last one wins
      await store.append(threadId, [ev.runAccepted("run-2"), ev.started("run-2"), ev.delta("run-2", "y"), ev.completed("run-2")]);
      expect(await store.getThread(threadId)).toMatchObject({ status: "COMPLETED", activeRunId: null, lastSeq: 9 });
      expect(await store.getRun(threadId, "run-2")).toMatchObject({ status: "completed", input: { runId: "run-2" } });
    });

    it("writes nothing of a failing append, and the rest of its batch commits", async () => {
      const store = ctx.store();
      const [bad, good] = [await newThread(), await newThread()];
      const runId = randomId("run");
      const results = await Promise.allSettled([
        // jsonb refuses \u0000: the run.accepted before it must not commit either
        store.append(bad, [ev.runAccepted(runId), ev.userMessage("nul \u0000 byte", runId)]),
        store.append(good, [ev.userMessage("fine")]),
      ]);
      expect(results[0].status).toBe("rejected");
      const err = (results[0] as PromiseRejectedResult).reason as AppendError;
      expect(err).toBeInstanceOf(AppendError);
      expect(err).toMatchObject({ threadId: bad, eventCount: 2 });
      expect(err.cause).toBeDefined();
      expect(results[1].status).toBe("fulfilled");

      expect(await store.read(bad)).toEqual([]);
      expect(await store.getRun(bad, runId)).toBeNull();
      expect(await store.getThread(bad)).toMatchObject({ status: "PENDING", activeRunId: null, lastSeq: 0 });
      expect((await store.read(good)).map((e) => e.seq)).toEqual([1]);
    });

    it("rejects an append to a missing thread with ThreadNotFoundError, alone", async () => {
      const good = await newThread();
      const [missing, ok] = await Promise.allSettled([
        ctx.store().append("no-such-thread", [ev.userMessage("lost")]),
        ctx.store().append(good, [ev.userMessage("kept")]),
      ]);
      expect((missing as PromiseRejectedResult).reason).toBeInstanceOf(ThreadNotFoundError);
      expect((missing as PromiseRejectedResult).reason).toMatchObject({ threadId: "no-such-thread" });
      expect(ok.status).toBe("fulfilled");
    });
  });

  describe("sequences", () => {
    it("stay gapless and in submission order under many concurrent appends", async () => {
      const threads = [await newThread(), await newThread(), await newThread()];
      const appends = range(0, 299).map((i) => {
        const threadId = threads[i % 3]!;
        const n = 1 + (i % 4);
        return ctx.store().append(threadId, range(1, n).map((k) => ev.delta("r", `${i}.${k}`)));
      });
      await Promise.all(appends);
      for (const [t, threadId] of threads.entries()) {
        const events = await ctx.store().read(threadId);
        expect(events.map((e) => e.seq)).toEqual(range(1, events.length));
        const expected = range(0, 299)
          .filter((i) => i % 3 === t)
          .flatMap((i) => range(1, 1 + (i % 4)).map((k) => `${i}.${k}`));
        expect(events.map(deltaOf)).toEqual(expected);
      }
    });

    it("stay gapless with two writers (two store instances) on the same threads", async () => {
      const threads = [await newThread(), await newThread()];
      const write = (writer: "A" | "B", store = writer === "A" ? ctx.store() : ctx.peer()) =>
        Promise.all(
          range(0, 149).map((i) => {
            // both threads in every other append, in opposite orders: the lock order is the store's
            const order = writer === "A" ? threads : [...threads].reverse();
            const targets = i % 2 === 0 ? order : [order[i % 4 === 1 ? 0 : 1]!];
            return Promise.all(targets.map((t) => store.append(t, [ev.delta("r", `${writer}${i}`), ev.delta("r", `${writer}${i}+`)])));
          }),
        );
      await Promise.all([write("A"), write("B")]);
      for (const threadId of threads) {
        const events = await ctx.peer().read(threadId);
        expect(events.map((e) => e.seq)).toEqual(range(1, events.length));
        expect((await ctx.store().getThread(threadId))?.lastSeq).toBe(events.length);
        for (const w of ["A", "B"]) {
          const mine = events.map(deltaOf).filter((d) => d.startsWith(w));
          const indices = mine.filter((d) => !d.endsWith("+")).map((d) => Number(d.slice(1)));
          expect(indices).toEqual([...indices].sort((x, y) => x - y));
          // an append's two events stay adjacent
          const seqs = events.filter((e) => deltaOf(e).startsWith(w)).map((e) => e.seq);
          for (let k = 0; k < seqs.length; k += 2) expect(seqs[k + 1]).toBe(seqs[k]! + 1);
        }
      }
    });
  });

  describe("live feed", () => {
    async function midStream(follower: () => ReturnType<ContractContext["store"]>) {
      const threadId = await newThread();
      const total = 40 * 3;
      let joined!: () => void;
      const tenDone = new Promise<void>((resolve) => (joined = resolve));
      const writing = (async () => {
        for (let i = 0; i < 40; i++) {
          await ctx.store().append(threadId, [ev.delta("r", `${i}a`), ev.delta("r", `${i}b`), ev.delta("r", `${i}c`)]);
          if (i === 9) joined();
        }
      })();
      await tenDone;
      const seen = await followUntil(follower(), threadId, 7, total);
      await writing;
      expect(seen.map((e) => e.seq)).toEqual(range(8, total));
      expect(seen).toEqual(await ctx.store().read(threadId, { after: 7 }));
    }

    it("a follower joining mid-stream misses nothing and sees nothing twice", () => midStream(ctx.store));

    it("the same across instances: append through one store, follow through another", () => midStream(ctx.peer));

    it("wakes an idle follower on the next append, and ends when the signal aborts", async () => {
      const threadId = await newThread();
      await ctx.store().append(threadId, [ev.userMessage("before")]);
      const ac = new AbortController();
      const batches: number[][] = [];
      const following = (async () => {
        for await (const batch of ctx.peer().follow(threadId, 1, ac.signal)) {
          batches.push(batch.map((e) => e.seq));
          if (batches.length === 1) await ctx.store().append(threadId, [ev.userMessage("third")]);
          if (batches.length === 2) ac.abort();
        }
      })();
      await ctx.store().append(threadId, [ev.userMessage("after")]);
      await following;
      expect(batches.flat()).toEqual([2, 3]);
    });

    it("a foreignOnly follower wakes for another instance's appends, not its own store's", async () => {
      const [own, other] = [ctx.store(), ctx.peer()];
      const threadId = await newThread();
      await own.append(threadId, [ev.userMessage("first")]);
      const ac = new AbortController();
      const batches: number[][] = [];
      let gotFirst!: () => void;
      const first = new Promise<void>((r) => (gotFirst = r));
      const following = (async () => {
        for await (const batch of own.follow(threadId, 0, ac.signal, { foreignOnly: true })) {
          batches.push(batch.map((e) => e.seq));
          if (batches.length === 1) gotFirst();
          if (batches.length === 2) ac.abort();
        }
      })();
      await first; // the catch-up read: [1]
      await own.append(threadId, [ev.userMessage("own")]); // rings nothing for this follower
      await other.append(threadId, [ev.userMessage("foreign")]);
      await following;
      // Woken by the foreign append only, so its next read holds both events at once.
      expect(batches).toEqual([[1], [2, 3]]);
    });

    it("ends its followers and refuses appends once closed", async () => {
      const store = ctx.open(ctx.freshSchema());
      await store.migrate();
      await store.ensureThread("t", "agent");
      const following = (async () => {
        let n = 0;
        for await (const batch of store.follow("t", 0, new AbortController().signal)) n += batch.length;
        return n;
      })();
      await store.append("t", [ev.userMessage("last")]);
      await store.close();
      expect([0, 1]).toContain(await following); // it ends: whether it read "last" first is a race
      await expect(store.append("t", [ev.userMessage("late")])).rejects.toBeInstanceOf(StoreClosedError);
    });
  });
}
