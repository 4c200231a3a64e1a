/** Contract, part 2: threads (list, delete, tenants), runs (queue), leases, compaction. */
import { describe, expect, it } from "vitest";
import { InvalidCursorError, LeaseLostError, ThreadNotFoundError, ThreadNotOwnedError } from "../../server/store/errors.ts";
import { loadMigrations } from "../../server/store/migrate.ts";
import type { EventStore, ThreadRow } from "../../server/store/types.ts";
import { DEFAULT_TENANT } from "../../server/tenant.ts";
import type { ContractContext } from "./contract.ts";
import { ev, randomId, range } from "./fixtures.ts";

export function threadsContract(ctx: ContractContext): void {
  async function newThread(store: EventStore = ctx.store(), agentId = "agent") {
    const threadId = randomId("t");
    await store.ensureThread(threadId, agentId);
    return threadId;
  }

  describe("threads", () => {
    it("lists newest-updated first, filtered by agent and status, page by page", async () => {
      const { store } = await ctx.freshPair();
      const alpha = [];
      for (let i = 0; i < 5; i++) alpha.push(await newThread(store, "alpha"));
      const beta = await newThread(store, "beta");
      // touch in a known order: alpha[2] last, so it comes first
      for (const i of [0, 1, 3, 4, 2]) await store.append(alpha[i]!, [ev.userMessage(`touch ${i}`)]);
      await store.append(alpha[4]!, [ev.runAccepted(randomId("run"))]);
      await store.append(alpha[4]!, [ev.completed("x")]);

      const ids: string[] = [];
      let before: string | undefined;
      for (;;) {
        const page = await store.listThreads({ agentId: "alpha", limit: 2, before });
        expect(page.threads.length).toBeLessThanOrEqual(2);
        ids.push(...page.threads.map((t) => t.threadId));
        if (!page.next) break;
        before = page.next;
      }
      expect(ids).toEqual([alpha[4], alpha[2], alpha[3], alpha[1], alpha[0]]);

      const completed = await store.listThreads({ status: "COMPLETED" });
      expect(completed).toEqual({ threads: [expect.objectContaining({ threadId: alpha[4], status: "COMPLETED" })], next: null });
      expect((await store.listThreads({ agentId: "beta" })).threads.map((t) => t.threadId)).toEqual([beta]);
      await expect(store.listThreads({ before: "not-a-cursor" })).rejects.toBeInstanceOf(InvalidCursorError);
    });

    it("deletes a thread with its events and runs", async () => {
      const store = ctx.store();
      const threadId = await newThread();
      const runId = randomId("run");
      await store.append(threadId, [ev.runAccepted(runId), ev.started(runId), ev.delta(runId, "x"), ev.completed(runId)]);
      expect(await store.deleteThread(threadId)).toBe("deleted");
      expect(await store.deleteThread(threadId)).toBe("not_found");
      expect(await store.getThread(threadId)).toBeNull();
      expect(await store.getRun(threadId, runId)).toBeNull();
      expect(await store.read(threadId)).toEqual([]);
      await expect(store.append(threadId, [ev.delta(runId, "y")])).rejects.toBeInstanceOf(ThreadNotFoundError);
    });

    it("refuses to delete a thread with an active or a queued run, and deletes nothing", async () => {
      const store = ctx.store();
      const threadId = await newThread();
      const [r1, r2] = [randomId("run"), randomId("run")];
      await store.append(threadId, [ev.runAccepted(r1), ev.started(r1)]);
      expect(await store.deleteThread(threadId)).toBe("busy");
      await store.enqueueRun(threadId, r2, { runId: r2 });
      await store.append(threadId, [ev.completed(r1)]);
      expect(await store.deleteThread(threadId)).toBe("busy"); // r2 waits behind r1
      expect((await store.getThread(threadId))?.lastSeq).toBe(3);
      expect(await store.getRun(threadId, r2)).toMatchObject({ status: "queued" });
    });
  });

  describe("tenants", () => {
    it("a thread belongs to the tenant that created it; ensureThread refuses it to others, writing nothing", async () => {
      const store = ctx.store();
      const threadId = randomId("t");
      const created = await store.ensureThread(threadId, "agent", "acme");
      expect(created).toMatchObject({ created: true, thread: { threadId, tenantId: "acme" } });
      expect(await ctx.peer().ensureThread(threadId, "agent", "acme")).toEqual({ thread: created.thread, created: false });
      for (const other of ["globex", DEFAULT_TENANT]) {
        const err = await store.ensureThread(threadId, "agent", other).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ThreadNotOwnedError);
        expect(err).toMatchObject({ code: "THREAD_NOT_OWNED", threadId, tenantId: other });
      }
      expect(await store.getThread(threadId)).toEqual(created.thread);
      // Without a tenant, a new thread is the default tenant's.
      const plain = await newThread();
      expect((await store.getThread(plain))?.tenantId).toBe(DEFAULT_TENANT);
    });

    it("threads from before tenants, and those a release from before tenants inserts, are the default tenant's; a null tenant is refused", async () => {
      const schema = ctx.freshSchema();
      const ident = `"${schema}"`;
      await ctx.backend.sql(`create schema ${ident}`);
      await ctx.backend.sql(`create table ${ident}.migrations (id int primary key, name text not null, applied_at timestamptz not null default now())`);
      // The database as the previous release left it: migrations 1 and 2, one thread.
      for (const m of loadMigrations().filter((m) => m.id < 3)) {
        for (const statement of m.sql.replaceAll(":THREADLINE_SCHEMA", ident).split(/;\s*$/m)) {
          if (statement.replace(/--.*$/gm, "").trim()) await ctx.backend.sql(statement);
        }
        await ctx.backend.sql(`insert into ${ident}.migrations (id, name) values ($1::int, $2::text)`, [m.id, m.name]);
      }
      await ctx.backend.sql(`insert into ${ident}.threads (thread_id, agent_id) values ('old', 'agent')`);

      const store = ctx.open(schema);
      await store.migrate();
      await store.ping();
      expect(await store.getThread("old", DEFAULT_TENANT)).toMatchObject({ threadId: "old", tenantId: DEFAULT_TENANT });
      expect(await store.getThread("old", "acme")).toBeNull();
      expect((await store.ensureThread("old", "agent")).created).toBe(false);
      // A release from before tenants, still serving during a rolling upgrade, names no tenant (0006).
      await ctx.backend.sql(`insert into ${ident}.threads (thread_id, agent_id) values ('older', 'agent')`);
      expect(await store.getThread("older", DEFAULT_TENANT)).toMatchObject({ threadId: "older", tenantId: DEFAULT_TENANT });
      await expect(ctx.backend.sql(`insert into ${ident}.threads (thread_id, agent_id, tenant_id) values ('new', 'agent', null)`)).rejects.toThrow(/tenant_id/);
    });

    it("get and delete with a tenant see only that tenant's thread", async () => {
      const store = ctx.store();
      const threadId = randomId("t");
      await store.ensureThread(threadId, "agent", "acme");
      await store.append(threadId, [ev.userMessage("mine")]);
      expect(await store.getThread(threadId, "globex")).toBeNull();
      expect(await store.getThread(threadId, DEFAULT_TENANT)).toBeNull();
      expect(await store.getThread(threadId, "acme")).toMatchObject({ threadId, tenantId: "acme", lastSeq: 1 });
      expect(await store.deleteThread(threadId, "globex")).toBe("not_found");
      expect(await store.read(threadId)).toHaveLength(1);
      expect(await store.deleteThread(threadId, "acme")).toBe("deleted");
      expect(await store.getThread(threadId)).toBeNull();
    });

    it("lists only the tenant's threads, newest first, page by page, cursors included", async () => {
      const { store } = await ctx.freshPair();
      const acme: string[] = [];
      const globex: string[] = [];
      // interleaved, so that any page that leaked would show the other tenant's threads
      for (let i = 0; i < 4; i++) {
        for (const [tenant, ids] of [["acme", acme], ["globex", globex]] as const) {
          const threadId = randomId(tenant);
          await store.ensureThread(threadId, i % 2 ? "alpha" : "beta", tenant);
          await store.append(threadId, [ev.userMessage(`touch ${i}`)]);
          ids.push(threadId);
        }
      }
      const plain = await newThread(store);
      const listAll = async (tenantId: string | undefined, agentId?: string) => {
        const ids: string[] = [];
        let before: string | undefined;
        for (;;) {
          const page = await store.listThreads({ tenantId, agentId, limit: 1, before });
          ids.push(...page.threads.map((t) => t.threadId));
          for (const t of page.threads) if (tenantId) expect(t.tenantId).toBe(tenantId);
          if (!page.next) return ids;
          before = page.next;
        }
      };
      expect(await listAll("acme")).toEqual([...acme].reverse());
      expect(await listAll("globex")).toEqual([...globex].reverse());
      expect(await listAll("acme", "alpha")).toEqual([acme[3], acme[1]]);
      expect(await listAll(DEFAULT_TENANT)).toEqual([plain]);
      expect(await listAll("nobody")).toEqual([]);
      // A cursor from one tenant's pages reads the other tenant's threads after that point only.
      const first = await store.listThreads({ tenantId: "acme", limit: 2 });
      const crossed = await store.listThreads({ tenantId: "globex", before: first.next! });
      expect(crossed.threads.every((t) => t.tenantId === "globex")).toBe(true);
      expect((await listAll(undefined)).sort()).toEqual([...acme, ...globex, plain].sort());
    });
  });

  describe("runs", () => {
    it("queues runs and hands out the oldest; accepting one keeps its input", async () => {
      const store = ctx.store();
      const threadId = await newThread();
      const [r2, r3] = [randomId("run"), randomId("run")];
      const input = { threadId, runId: r2, messages: [{ id: "m", role: "user", content: "next" }] };
      expect(await store.nextQueuedRun(threadId)).toBeNull();
      expect(await store.enqueueRun(threadId, r2, input)).toBe(true);
      expect(await store.enqueueRun(threadId, r3, { runId: r3 })).toBe(true);
      expect(await store.enqueueRun(threadId, r2, { ignored: true })).toBe(false); // a reused run id changes nothing
      expect(await store.nextQueuedRun(threadId)).toMatchObject({ runId: r2, threadId, status: "queued", input });

      await store.append(threadId, [ev.runAccepted(r2)]);
      expect(await store.getRun(threadId, r2)).toMatchObject({ status: "running", input });
      expect((await store.nextQueuedRun(threadId))?.runId).toBe(r3);
      await expect(store.enqueueRun("no-such-thread", randomId("run"), {})).rejects.toBeInstanceOf(ThreadNotFoundError);
    });
  });

  describe("leases", () => {
    it("acquire, conflict, heartbeat, release", async () => {
      const [a, b] = [ctx.store(), ctx.peer()];
      const threadId = await newThread();
      expect(await a.acquireLease(threadId, "A", 60_000)).toBe(true);
      expect(await b.acquireLease(threadId, "B", 60_000)).toBe(false);
      // Not re-entrant: a second start by the holder must find the thread busy.
      expect(await a.acquireLease(threadId, "A", 60_000)).toBe(false);
      const held = await a.getThread(threadId);
      expect(held).toMatchObject({ leaseOwner: "A" });
      expect(held!.leaseExpiresAt).toBeGreaterThan(held!.updatedAt + 50_000);

      expect(await a.heartbeat("A", [threadId, "no-such-thread"], 60_000)).toEqual([threadId]);
      expect(await b.heartbeat("B", [threadId], 60_000)).toEqual([]);
      await b.releaseLease(threadId, "B"); // not B's: no effect
      expect(await b.acquireLease(threadId, "B", 60_000)).toBe(false);
      await a.releaseLease(threadId, "A");
      expect(await a.getThread(threadId)).toMatchObject({ leaseOwner: null, leaseExpiresAt: null });
      expect(await b.acquireLease(threadId, "B", 60_000)).toBe(true);
    });

    it("a batch that settles the thread frees its lease in the same commit", async () => {
      const [a, b] = [ctx.store(), ctx.peer()];
      const threadId = await newThread();
      expect(await a.acquireLease(threadId, "A", 60_000)).toBe(true);
      await a.append(threadId, [ev.runAccepted("r1"), ev.started("r1")]);
      expect(await a.getThread(threadId)).toMatchObject({ status: "RUNNING", leaseOwner: "A" });
      expect(await b.acquireLease(threadId, "B", 60_000)).toBe(false);
      await a.append(threadId, [ev.suspended("r1")]);
      expect(await a.getThread(threadId)).toMatchObject({ status: "WAITING", leaseOwner: null, leaseExpiresAt: null });
      expect(await b.acquireLease(threadId, "B", 60_000)).toBe(true);
      // Not re-entrant: a second start by the same instance finds the thread taken.
      expect(await b.acquireLease(threadId, "B", 60_000)).toBe(false);
    });

    it("a cancel that arrives after the run ended changes no status (no CANCELLING forever)", async () => {
      const store = ctx.store();
      const threadId = await newThread();
      await store.append(threadId, [ev.runAccepted("r1"), ev.started("r1"), ev.suspended("r1")]);
      await store.append(threadId, [ev.cancelling("r1")]);
      expect(await store.getThread(threadId)).toMatchObject({ status: "WAITING", activeRunId: null });
      await store.append(threadId, [{ type: "workflow.cancelled", data: { runId: "r1" } }]);
      expect(await store.getThread(threadId)).toMatchObject({ status: "WAITING", activeRunId: null });
      // While the run is active, the same events do move it.
      await store.append(threadId, [ev.runAccepted("r2"), ev.started("r2"), { type: "workflow.cancelling", data: { runId: "r2" } }]);
      expect(await store.getThread(threadId)).toMatchObject({ status: "CANCELLING", activeRunId: "r2" });
      await store.append(threadId, [{ type: "workflow.cancelled", data: { runId: "r2" } }]);
      expect(await store.getThread(threadId)).toMatchObject({ status: "CANCELLED", activeRunId: null });
    });

    it("a fenced append commits only while its owner holds the lease", async () => {
      const [a, b] = [ctx.store(), ctx.peer()];
      const threadId = await newThread();
      expect(await a.acquireLease(threadId, "A", 0)).toBe(true); // expires at once
      await a.append(threadId, [ev.runAccepted("r1"), ev.started("r1")], { leaseOwner: "A" });
      // Expired but not claimed: the owner still writes.
      await a.append(threadId, [ev.delta("r1", "hi")], { leaseOwner: "A" });
      // (The schema is shared with other tests: their orphans may be claimed too.)
      expect((await b.claimExpired("B", 60_000, 100)).map((t) => t.threadId)).toContain(threadId);
      // Taken over: the old owner's append is refused whole, and unfenced appends still land.
      const err = await a.append(threadId, [ev.delta("r1", " stale"), ev.suspended("r1")], { leaseOwner: "A" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LeaseLostError);
      await a.append(threadId, [ev.cancelling("r1")]);
      await b.append(threadId, [ev.suspended("r1")], { leaseOwner: "B" });
      const types = (await a.read(threadId)).map((e) => e.type);
      expect(types).toEqual(["run.accepted", "workflow.started", "text.delta", "workflow.cancelling", "workflow.suspended"]);
      expect(await a.getThread(threadId)).toMatchObject({ status: "WAITING", lastSeq: 5, leaseOwner: null });
    });

    it("an expired lease can be taken over, and its old holder's heartbeat then fails", async () => {
      const [a, b] = [ctx.store(), ctx.peer()];
      const threadId = await newThread();
      expect(await a.acquireLease(threadId, "A", 0)).toBe(true); // expires at once (database clock)
      expect(await b.acquireLease(threadId, "B", 60_000)).toBe(true);
      expect(await a.heartbeat("A", [threadId], 60_000)).toEqual([]);
      expect((await a.getThread(threadId))?.leaseOwner).toBe("B");
    });

    it("claimExpired hands each orphaned active thread to exactly one claimer", async () => {
      const { store, peer } = await ctx.freshPair();
      const orphans: string[] = [];
      for (let i = 0; i < 12; i++) {
        const threadId = await newThread(store);
        await store.append(threadId, [ev.runAccepted(randomId("run")), ...(i % 2 ? [ev.started("x")] : [])]);
        if (i % 3 === 0) await store.acquireLease(threadId, "dead", 0);
        orphans.push(threadId);
      }
      const idle = await newThread(store); // PENDING without a run: nothing to recover
      const done = await newThread(store);
      await store.append(done, [ev.runAccepted(randomId("run")), ev.started("x"), ev.completed("x")]);
      const alive = await newThread(store);
      await store.append(alive, [ev.runAccepted(randomId("run"))]);
      await store.acquireLease(alive, "alive", 60_000);

      const [mine, theirs] = await Promise.all([store.claimExpired("A", 60_000, 8), peer.claimExpired("B", 60_000, 8)]);
      const ids = (rows: ThreadRow[]) => rows.map((t) => t.threadId);
      expect(new Set(ids(mine)).size + new Set(ids(theirs)).size).toBe(12);
      expect([...ids(mine), ...ids(theirs)].sort()).toEqual([...orphans].sort());
      expect(ids([...mine, ...theirs])).not.toContain(idle);
      for (const t of mine) expect(t).toMatchObject({ leaseOwner: "A" });
      for (const t of theirs) expect(t).toMatchObject({ leaseOwner: "B" });
      expect(await store.claimExpired("C", 60_000, 100)).toEqual([]);
    });

    it("claimExpired passes over the threads the claimer executes itself, and its beat keeps them", async () => {
      const { store } = await ctx.freshPair();
      const [mineRunning, orphan] = [await newThread(store), await newThread(store)];
      for (const t of [mineRunning, orphan]) {
        await store.append(t, [ev.runAccepted(randomId("run")), ev.started("x")]);
        await store.acquireLease(t, "A", 0); // expired at once: a beat this busy instance missed
      }
      const claimed = await store.claimExpired("A", 60_000, 100, [mineRunning]);
      expect(claimed.map((t) => t.threadId)).toEqual([orphan]);
      // Still A's, still expired: the late beat renews it rather than anybody re-claiming it here.
      expect(await store.heartbeat("A", [mineRunning], 60_000)).toEqual([mineRunning]);
      expect(await store.claimExpired("B", 60_000, 100)).toEqual([]);
    });
  });

  describe("compaction", () => {
    it("deletes stream events of ended runs older than the cut-off, nothing else", async () => {
      const { store } = await ctx.freshPair();
      const threadId = await newThread(store);
      const [ended, running] = [randomId("run"), randomId("run")];
      const stream = (runId: string) => [ev.textStarted(runId), ev.delta(runId, "a"), ev.delta(runId, "b"), ev.textEnded(runId)];
      await store.append(threadId, [ev.runAccepted(ended), ev.started(ended), ...stream(ended), ev.completed(ended)]);
      await store.append(threadId, [ev.runAccepted(running), ev.started(running), ...stream(running)]);

      expect(await store.compact(60_000)).toBe(0); // ended just now: kept
      expect(await store.compact(0)).toBe(4);
      const left = await store.read(threadId);
      expect(left.filter((e) => e.runId === ended).map((e) => e.type)).toEqual(["run.accepted", "workflow.started", "workflow.completed"]);
      expect(left.filter((e) => e.runId === running)).toHaveLength(6);
      expect(left.map((e) => e.seq)).toEqual([1, 2, 7, ...range(8, 13)]);
      // The gap compaction left is visible without reading the log: 7 events after seq 2, not 11.
      expect(await store.countAfter(threadId, 2)).toEqual({ count: 7, lastSeq: 13 });
      expect(await store.compact(0)).toBe(0);
    });
  });
}
