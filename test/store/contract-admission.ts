/**
 * Contract, part 3: a run's admission (RunAdmission). The thread row, the run row, the lease and
 * the run's first events commit together or not at all, checked against the thread as the run's
 * batch was built from it.
 */
import { describe, expect, it } from "vitest";
import type { WorkflowEvent } from "../../protocol/events.ts";
import { AdmissionRefusedError, AppendError } from "../../server/store/errors.ts";
import type { FlushInfo } from "../../server/store/writer.ts";
import { countingDb, type StatementCounts } from "../support/counting-db.ts";
import type { ContractContext } from "./contract.ts";
import { admit, ev, randomId } from "./fixtures.ts";

const firstEvents = (runId: string, extra: WorkflowEvent[] = []): WorkflowEvent[] => [
  ev.threadCreated(),
  ev.runAccepted(runId),
  ...extra,
  ev.started(runId),
];

export function admissionContract(ctx: ContractContext): void {
  describe("run admission", () => {
    /** Everything the database holds of a thread, to compare before and after a refusal. */
    async function footprint(threadId: string) {
      const s = ctx.store();
      const thread = await s.getThread(threadId);
      const runs = await ctx.backend.sql<{ n: number }>(
        `select count(*)::int as n from "${ctx.schema()}".runs where thread_id = $1`,
        [threadId],
      );
      return { thread, events: await s.read(threadId), runs: runs[0]!.n };
    }

    it("creates the thread, takes the lease and writes the run in one commit", async () => {
      const store = ctx.store();
      const [threadId, runId] = [randomId("t"), randomId("run")];
      const stored = await store.append(threadId, firstEvents(runId), { admit: admit() });
      expect(stored.map((e) => e.seq)).toEqual([1, 2, 3]);
      expect(await store.getThread(threadId)).toMatchObject({
        agentId: "agent",
        tenantId: "default",
        status: "RUNNING",
        activeRunId: runId,
        leaseOwner: "instance-a",
        lastSeq: 3,
      });
      expect(await store.getRun(threadId, runId)).toMatchObject({ status: "running" });
    });

    it("is refused, writing nothing, when the thread moved on, is leased, or is another agent's", async () => {
      const store = ctx.store();
      const [threadId, r1] = [randomId("t"), randomId("run")];
      await store.append(threadId, [...firstEvents(r1), ev.completed(r1)], { admit: admit() });
      const before = await footprint(threadId);
      expect(before.thread).toMatchObject({ status: "COMPLETED", lastSeq: 4, leaseOwner: null });

      const r2 = randomId("run");
      const again = [ev.runAccepted(r2), ev.started(r2)];
      // Stale: built from the thread as it was before r1 ended.
      await expect(store.append(threadId, again, { admit: admit({ expectedLastSeq: 3 }) })).rejects.toBeInstanceOf(AdmissionRefusedError);
      // A new thread's admission for a thread that exists.
      await expect(store.append(threadId, firstEvents(r2), { admit: admit() })).rejects.toBeInstanceOf(AdmissionRefusedError);
      // Another agent's thread, another tenant's.
      await expect(store.append(threadId, again, { admit: admit({ agentId: "other", expectedLastSeq: 4 }) })).rejects.toBeInstanceOf(AdmissionRefusedError);
      await expect(store.append(threadId, again, { admit: admit({ tenantId: "acme", expectedLastSeq: 4 }) })).rejects.toBeInstanceOf(AdmissionRefusedError);
      // Leased by someone else (a cancel settling it, a recovery).
      expect(await store.acquireLease(threadId, "instance-b", 60_000)).toBe(true);
      await expect(store.append(threadId, again, { admit: admit({ expectedLastSeq: 4 }) })).rejects.toBeInstanceOf(AdmissionRefusedError);
      const leased = await footprint(threadId);
      expect({ ...leased, thread: { ...leased.thread, leaseOwner: null, leaseExpiresAt: null } }).toEqual(before);

      await store.releaseLease(threadId, "instance-b");
      await store.append(threadId, again, { admit: admit({ expectedLastSeq: 4 }) });
      expect(await store.getThread(threadId)).toMatchObject({ status: "RUNNING", activeRunId: r2, leaseOwner: "instance-a" });
    });

    it("admits exactly one of two instances starting the same new thread at once", async () => {
      const threadId = randomId("t");
      const results = await Promise.allSettled([
        ctx.store().append(threadId, firstEvents("run-a"), { admit: admit({ leaseOwner: "a" }) }),
        ctx.peer().append(threadId, firstEvents("run-b"), { admit: admit({ leaseOwner: "b" }) }),
      ]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
      expect(refused.reason).toBeInstanceOf(AdmissionRefusedError);
      const thread = await ctx.store().getThread(threadId);
      expect(thread?.lastSeq).toBe(3);
      expect((await ctx.store().read(threadId)).map((e) => e.runId)).toEqual([null, thread!.activeRunId, thread!.activeRunId]);
    });

    it("writes no thread row, run or lease when the database refuses the run's data", async () => {
      const store = ctx.store();
      const [threadId, runId] = [randomId("t"), randomId("run")];
      const bad = firstEvents(runId, [ev.userMessage("nul \u0000 byte", runId)]);
      await expect(store.append(threadId, bad, { admit: admit() })).rejects.toBeInstanceOf(AppendError);
      expect(await footprint(threadId)).toEqual({ thread: null, events: [], runs: 0 });
      // The same thread id starts cleanly afterwards.
      await store.append(threadId, firstEvents(runId), { admit: admit() });
      expect((await store.getThread(threadId))?.status).toBe("RUNNING");
    });

    it("is refused when the thread was deleted since it was read", async () => {
      const store = ctx.store();
      const [threadId, r1, r2] = [randomId("t"), randomId("run"), randomId("run")];
      await store.append(threadId, [...firstEvents(r1), ev.completed(r1)], { admit: admit() });
      expect(await store.deleteThread(threadId)).toBe("deleted");
      await expect(store.append(threadId, [ev.runAccepted(r2), ev.started(r2)], { admit: admit({ expectedLastSeq: 4 }) }))
        .rejects.toBeInstanceOf(AdmissionRefusedError);
      expect(await footprint(threadId)).toEqual({ thread: null, events: [], runs: 0 });
    });

    it("keeps run ids per thread: two threads may use the same one", async () => {
      const store = ctx.store();
      const [t1, t2] = [randomId("t"), randomId("t")];
      await store.append(t1, [...firstEvents("same-run"), ev.completed("same-run")], { admit: admit() });
      await store.append(t2, firstEvents("same-run"), { admit: admit() });
      expect(await store.getRun(t1, "same-run")).toMatchObject({ status: "completed" });
      expect(await store.getRun(t2, "same-run")).toMatchObject({ status: "running" });
    });

    it("rejects an append whose data cannot be encoded, and commits the others of its flush", async () => {
      const store = ctx.store();
      const [bad, good] = [randomId("t"), randomId("t")];
      await store.ensureThread(bad, "agent");
      await store.ensureThread(good, "agent");
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      let deep: unknown = "leaf";
      for (let i = 0; i < 100_000; i++) deep = [deep];
      const results = await Promise.allSettled([
        store.append(bad, [{ type: "state.set", data: { runId: "r", state: cyclic } }]),
        store.append(bad, [{ type: "state.set", data: { runId: "r", state: deep } }]),
        store.append(good, [ev.userMessage("fine")]),
      ]);
      expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "fulfilled"]);
      expect((results[0] as PromiseRejectedResult).reason).toBeInstanceOf(AppendError);
      expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(AppendError);
      expect(await store.read(bad)).toEqual([]);
      expect(await store.read(good)).toHaveLength(1);
    });

    describe("admissions that arrive together", () => {
      /** A migrated store of its own that reports its flushes and counts its statements. */
      async function observed() {
        const flushes: FlushInfo[] = [];
        const counting: { counts?: StatementCounts } = {};
        const schema = ctx.freshSchema();
        const store = ctx.open(schema, {
          writer: { onFlush: (f) => flushes.push(f) },
          instrument: (db) => {
            const c = countingDb(db);
            counting.counts = c.counts;
            return c.db;
          },
        });
        await store.migrate();
        flushes.length = 0;
        return { store, schema, flushes, trips: () => counting.counts!.roundTrips };
      }

      /**
       * The flushes a batch of these threads takes: one on one node, one per shard on Citus
       * (shards.ts), whose first sight of a thread also costs one lookup of its shard.
       */
      async function flushPlan(schema: string, threads: readonly string[]) {
        const groups = ctx.backend.shardGroups ? await ctx.backend.shardGroups(schema, threads) : 1;
        return { groups, lookups: ctx.backend.shardGroups ? 1 : 0 };
      }
      const sum = (flushes: readonly FlushInfo[], key: "appends" | "threads" | "events") => flushes.reduce((n, f) => n + f[key], 0);

      it("commits N admissions on N threads in one flush, one round trip, after one read for all", async () => {
        const { store, schema, flushes, trips } = await observed();
        const n = 40;
        const threads = Array.from({ length: n }, () => randomId("t"));
        const { groups, lookups } = await flushPlan(schema, threads);
        const before = trips();
        // What startRun does for each: read the view, then append with the admission.
        const views = await Promise.all(threads.map((t) => store.admissionView(t, "run")));
        expect(views.every((v) => v.thread === null && !v.runTaken)).toBe(true);
        expect(trips() - before).toBe(1);
        const stored = await Promise.all(threads.map((t) => store.append(t, firstEvents("run"), { admit: admit() })));
        expect(stored.map((s) => s.map((e) => e.seq))).toEqual(threads.map(() => [1, 2, 3]));
        expect(flushes).toHaveLength(groups);
        expect(flushes.every((f) => f.ok)).toBe(true);
        expect([sum(flushes, "appends"), sum(flushes, "threads"), sum(flushes, "events")]).toEqual([n, n, 3 * n]);
        expect(trips() - before).toBe(1 + lookups + groups);
        const again = await Promise.all(threads.map((t) => store.admissionView(t, "run")));
        expect(again.map((v) => [v.thread?.status, v.thread?.lastSeq, v.runTaken])).toEqual(threads.map(() => ["RUNNING", 3, true]));
      });

      it("refuses one admission of a flush, writing nothing of it, and commits the others", async () => {
        const { store, schema, flushes } = await observed();
        const [busy, a, b] = [randomId("t"), randomId("t"), randomId("t")];
        const { groups } = await flushPlan(schema, [busy, a, b]);
        await store.append(busy, firstEvents("r1"), { admit: admit() });
        const held = await footprintOf(store, busy);
        flushes.length = 0;
        const results = await Promise.allSettled([
          store.append(a, firstEvents("ra"), { admit: admit() }),
          // Leased by the run just admitted, and moved past the seq this one was built from.
          store.append(busy, [ev.runAccepted("r2"), ev.started("r2")], { admit: admit({ expectedLastSeq: 0 }) }),
          store.append(b, firstEvents("rb"), { admit: admit() }),
        ]);
        expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
        expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(AdmissionRefusedError);
        expect(flushes).toHaveLength(groups);
        expect(flushes.every((f) => f.ok)).toBe(true);
        expect(sum(flushes, "appends")).toBe(3);
        expect(await footprintOf(store, busy)).toEqual(held);
        expect((await store.getThread(a))?.activeRunId).toBe("ra");
        expect((await store.getThread(b))?.activeRunId).toBe("rb");
      });

      it("admits one of two admissions of the same thread that arrive together, and all the other threads'", async () => {
        const { store, schema, flushes } = await observed();
        const [raced, x, y] = [randomId("t"), randomId("t"), randomId("t")];
        const { groups } = await flushPlan(schema, [raced, x, y]);
        const results = await Promise.allSettled([
          store.append(raced, firstEvents("first"), { admit: admit() }),
          store.append(x, firstEvents("rx"), { admit: admit() }),
          store.append(raced, firstEvents("second"), { admit: admit({ leaseOwner: "instance-b" }) }),
          store.append(y, firstEvents("ry"), { admit: admit() }),
        ]);
        expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
        expect((results[2] as PromiseRejectedResult).reason).toBeInstanceOf(AdmissionRefusedError);
        // Both were built from the thread before either: the second is checked against the first.
        expect(await store.getThread(raced)).toMatchObject({ activeRunId: "first", leaseOwner: "instance-a", lastSeq: 3 });
        expect((await store.read(raced)).map((e) => e.runId)).toEqual([null, "first", "first"]);
        expect(await store.getRun(raced, "second")).toBeNull();
        // The other threads' admissions were not held back by the race: they share the first flush.
        const first = flushes.slice(0, groups);
        expect(first.every((f) => f.ok)).toBe(true);
        expect([sum(first, "appends"), sum(first, "threads")]).toEqual([3, 3]);
      });

      async function footprintOf(store: ReturnType<typeof ctx.store>, threadId: string) {
        const runs = await store.getRun(threadId, "r2");
        return { thread: await store.getThread(threadId), events: await store.read(threadId), r2: runs };
      }
    });
  });
}
