/**
 * The store on Citus (CITUS_URL: a coordinator with two workers, `citus.sh up`, set by .ci/run):
 * the contract suite as on Postgres, and what only Citus has: the tables distributed at
 * migrate(), an existing single-node schema distributed by the same step, two migrators at once,
 * DATABASE_DISTRIBUTE=off, retention shard by shard, and every statement the store issues planned as one shard's
 * (EXPLAIN), except those docs/scaling.md lists as fanning out with their reason.
 */
import { readFileSync } from "node:fs";
import { STREAM_EVENT_TYPES } from "../../protocol/events.ts";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db, Row } from "../../server/store/db.ts";
import { DISTRIBUTED_TABLES } from "../../server/store/distribution.ts";
import { HeartbeatMissedError } from "../../server/store/errors.ts";
import { inlineParams } from "../../server/store/inline-params.ts";
import { createPostgresStore } from "../../server/store/postgres.ts";
import type { EventStore } from "../../server/store/types.ts";
import { postgresBackend } from "./backends.ts";
import { storeContract } from "./contract.ts";
import { admit, ev, randomId, randomSchema } from "./fixtures.ts";

const url = process.env.CITUS_URL;
if (!url) console.warn("CITUS_URL is unset: the Citus tests are skipped (.ci/run builds Citus and sets it; see docs/scaling.md)");

if (url) {
  const backend = postgresBackend(url);
  storeContract({
    ...backend,
    name: "citus",
    async shardGroups(schema, threadIds) {
      const rows = await backend.sql<{ n: number }>(
        `select count(distinct get_shard_id_for_distribution_column($1::regclass, t))::int as n from unnest($2::text[]) t`,
        [`"${schema}".threads`, threadIds],
      );
      return rows[0]!.n;
    },
  });
}

describe.skipIf(!url)("Citus", () => {
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  const schemas: string[] = [];
  const stores: EventStore[] = [];
  const sql = async <R = Row>(text: string, params: unknown[] = []) => (await admin.query(text, params)).rows as R[];
  const fresh = () => {
    const schema = randomSchema();
    schemas.push(schema);
    return schema;
  };
  const open = (schema: string, opts: Partial<Parameters<typeof createPostgresStore>[0]> = {}) => {
    const store = createPostgresStore({ connectionString: url!, schema, ...opts });
    stores.push(store);
    return store;
  };
  const distributed = async (schema: string) =>
    new Map(
      (
        await sql<{ table: string; column: string; colocation: number }>(
          `select c.relname as table, column_to_column_name(p.logicalrelid, p.partkey) as column, p.colocationid as colocation
           from pg_dist_partition p join pg_class c on c.oid = p.logicalrelid join pg_namespace n on n.oid = c.relnamespace
           where n.nspname = $1::text`,
          [schema],
        )
      ).map((r) => [r.table, r]),
    );

  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    for (const schema of schemas) await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
  });

  it("distributes every table at migrate: per thread with threads, per tenant with schedules; migrations stays on the coordinator", async () => {
    const schema = fresh();
    // two instances migrating a fresh schema at once: both succeed, the tables are distributed once
    await Promise.all([open(schema).migrate(), open(schema).migrate()]);
    const tables = await distributed(schema);
    expect([...tables.keys()].sort()).toEqual(DISTRIBUTED_TABLES.map((t) => t.table).sort());
    for (const t of DISTRIBUTED_TABLES) {
      expect(tables.get(t.table)?.column).toBe(t.column);
      expect(tables.get(t.table)?.colocation).toBe(tables.get(t.colocateWith ?? t.table)?.colocation);
    }
    expect(tables.get("threads")!.colocation).not.toBe(tables.get("schedules")!.colocation);
    expect(tables.has("migrations")).toBe(false);
    // A table a new migration adds must be in the list (distribution.ts), or it would stay on the coordinator.
    const all = await sql<{ relname: string }>(
      `select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = $1::text and c.relkind in ('r', 'p') and c.relname !~ '_[0-9]+$'`,
      [schema],
    );
    expect(all.map((r) => r.relname).filter((t) => t !== "migrations").sort()).toEqual([...tables.keys()].sort());
    const applied = await sql<{ n: number }>(`select count(*)::int as n from "${schema}".migrations`);
    expect(applied[0]!.n).toBeGreaterThan(0);
  });

  it("DATABASE_DISTRIBUTE=off keeps every table local to the coordinator", async () => {
    const schema = fresh();
    const store = open(schema, { distribute: "off" });
    await store.migrate();
    expect((await distributed(schema)).size).toBe(0);
    const threadId = randomId("t");
    await store.ensureThread(threadId, "agent");
    await store.append(threadId, [ev.userMessage("local")]);
    expect(await store.read(threadId)).toHaveLength(1);
  });

  it("an existing single-node schema with rows is distributed by the next migrate(), every row kept and still written to", async () => {
    const schema = fresh();
    const local = open(schema, { distribute: "off" });
    await local.migrate();
    const threads = Array.from({ length: 20 }, () => randomId("t"));
    for (const t of threads) {
      await local.ensureThread(t, "agent");
      await local.append(t, [ev.userMessage(`before ${t}`), ev.delta("r", "x")]);
    }
    await local.close();

    const store = open(schema);
    await store.migrate();
    expect((await distributed(schema)).size).toBe(DISTRIBUTED_TABLES.length);
    for (const t of threads) {
      await store.append(t, [ev.userMessage(`after ${t}`)]);
      expect((await store.read(t)).map((e) => e.seq)).toEqual([1, 2, 3]);
    }
    // the rows left the coordinator for the workers: both hold some
    const placed = await sql<{ nodeport: number; n: number }>(
      `select nodeport, count(*)::int as n from citus_shards where table_name = $1::regclass group by nodeport`,
      [`"${schema}".workflow_events`],
    );
    expect(placed.map((p) => p.nodeport).sort()).toEqual([5442, 5443]);
  });

  it("a heartbeat whose one shard waits on a row lock renews the other shards' leases within the lease lock timeout", async () => {
    const schema = fresh();
    const store = open(schema);
    await store.migrate();
    const threads = Array.from({ length: 8 }, () => randomId("t"));
    for (const t of threads) {
      await store.ensureThread(t, "agent");
      expect(await store.acquireLease(t, "A", 60_000)).toBe(true);
    }
    const shardOf = new Map(
      (
        await sql<{ t: string; shard: string }>(`select t, get_shard_id_for_distribution_column($1::regclass, t)::text as shard from unnest($2::text[]) t`, [
          `"${schema}".threads`,
          threads,
        ])
      ).map((r) => [r.t, r.shard]),
    );
    const blocked = threads[0]!;
    const sameShard = threads.filter((t) => shardOf.get(t) === shardOf.get(blocked));
    const others = threads.filter((t) => shardOf.get(t) !== shardOf.get(blocked));
    expect(others.length).toBeGreaterThan(0);
    // Another transaction holds the row (on its worker) for as long as the test needs.
    const locker = await admin.connect();
    try {
      await locker.query("begin");
      await locker.query(`select 1 from "${schema}".threads where thread_id = $1::text for update`, [blocked]);
      const err = await store.heartbeat("A", threads, 60_000).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(HeartbeatMissedError);
      expect([...(err as HeartbeatMissedError).missed].sort()).toEqual([...sameShard].sort());
      expect([...(err as HeartbeatMissedError).held].sort()).toEqual([...others].sort());
      // the lease pool's lock timeout (1 s) reached the worker: the beat failed there, not after the lock
      expect(((err as Error).cause as { code?: string }).code).toBe("55P03");
    } finally {
      await locker.query("rollback");
      locker.release();
    }
    expect((await store.heartbeat("A", threads, 60_000)).sort()).toEqual([...threads].sort());
  });

  it("retention deletes shard by shard: each delete holds one shard's runs; old settled runs lose their deltas, the rest keep theirs", async () => {
    const schema = fresh();
    const recorded: { text: string; params: readonly unknown[] }[] = [];
    const recording = (db: Db): Db => ({
      ...db,
      kind: db.kind,
      query(text, params, name) {
        recorded.push({ text, params: params ?? [] });
        return db.query(text, params, name);
      },
    });
    const store = open(schema, { instrument: recording });
    await store.migrate();
    const ids = (n: number, p: string) => Array.from({ length: n }, () => randomId(p));
    const [old, recent, live] = [ids(10, "old"), ids(2, "recent"), ids(2, "live")];
    const deltas = (run: string) => [ev.textStarted(run), ...Array.from({ length: 6 }, (_, i) => ev.delta(run, `d${i} `)), ev.textEnded(run)];
    for (const t of [...old, ...recent, ...live]) {
      await store.ensureThread(t, "agent");
      await store.append(t, [ev.threadCreated(), ev.userMessage("hi"), ev.runAccepted("r1"), ev.started("r1"), ...deltas("r1")]);
      if (!live.includes(t)) await store.append(t, [ev.completed("r1")]);
    }
    // Past the cut-off by the database's clock: the old runs, and the live ones (which are not settled).
    await sql(`update "${schema}".runs set updated_at = now() - interval '2 hours' where thread_id = any($1::text[])`, [[...old, ...live]]);
    const counts = async () =>
      new Map(
        (
          await sql<{ thread_id: string; stream: number; other: number }>(
            `select thread_id, count(*) filter (where type = any($1::text[]))::int as stream, count(*) filter (where not type = any($1::text[]))::int as other
             from "${schema}".workflow_events group by thread_id`,
            [[...STREAM_EVENT_TYPES]],
          )
        ).map((r) => [r.thread_id, r]),
      );
    const before = await counts();
    recorded.length = 0;
    expect(await store.compact(60 * 60_000)).toBe(old.reduce((n, t) => n + before.get(t)!.stream, 0));
    const after = await counts();
    for (const t of old) expect(after.get(t), t).toEqual({ ...before.get(t), stream: 0 });
    for (const t of [...recent, ...live]) expect(after.get(t), t).toEqual(before.get(t));

    // One delete per shard holding old runs (none holds more than RUNS_PER_DELETE), each naming only that shard's threads.
    const shardOf = async (threads: readonly string[]) =>
      (await sql<{ shard: string }>(`select distinct get_shard_id_for_distribution_column($1::regclass, t)::text as shard from unnest($2::text[]) t`, [`"${schema}".threads`, threads])).map((r) => r.shard);
    // (On shards the values are literals in the text: inline-params.ts.)
    const deletes = recorded.filter((st) => st.text.includes("compacted_of_runs")).map((st) => /c\.thread_id = any\('\{([^}]*)\}'::text\[\]\)/.exec(st.text)![1]!.split(",").map((id) => id.replace(/^"|"$/g, "")));
    for (const threads of deletes) expect(await shardOf(threads)).toHaveLength(1);
    expect(deletes.length).toBe((await shardOf(old)).length);
    expect(new Set(deletes.flat())).toEqual(new Set(old));
    expect(await store.compact(0)).toBe(recent.reduce((n, t) => n + before.get(t)!.stream, 0));
  });

  describe("every statement the store issues routes to one shard", () => {
    const recorded: { text: string; params: readonly unknown[] }[] = [];
    let schema = "";

    /** Every statement, on the one pool (so that the lease statements pass the same seam). */
    const recording = (db: Db): Db => ({
      ...db,
      kind: db.kind,
      query(text, params, name) {
        recorded.push({ text, params: params ?? [] });
        return db.query(text, params, name);
      },
      batch(statements) {
        for (const st of statements) recorded.push({ text: st.text, params: st.params });
        return db.batch(statements);
      },
      transaction: (fn) => db.transaction(fn),
    });

    beforeAll(async () => {
      schema = fresh();
      await open(schema).migrate();
      const pool = new pg.Pool({ connectionString: url, max: 4 });
      const store = createPostgresStore({ connectionString: "", pool, schema, instrument: recording });
      await store.migrate();
      recorded.length = 0;
      const threadId = randomId("t");
      const runId = randomId("r");
      // a run's life: admission, tokens under the lease, a follower's read, the heartbeat, cancel, the end
      await store.admissionView(threadId, runId);
      await store.append(threadId, [ev.threadCreated(), ev.runAccepted(runId), ev.started(runId)], { admit: admit() });
      await store.append(threadId, [ev.textStarted(runId), ev.delta(runId, "a")], { leaseOwner: "instance-a" });
      await store.read(threadId, { after: 1 });
      await store.countAfter(threadId, 1);
      await store.readCompacted(threadId, 0, 10);
      await store.heartbeat("instance-a", [threadId], 60_000);
      await store.append(threadId, [ev.cancelling(runId)], { leaseOwner: "instance-a" });
      await store.append(threadId, [ev.completed(runId)], { leaseOwner: "instance-a", checkpoint: { lastSeq: 0 } as never });
      await store.getThread(threadId, "default");
      await store.readCheckpoint(threadId);
      await store.checkpointSeq(threadId);
      await store.getRun(threadId, runId);
      await store.runStatus(threadId, runId);
      await store.enqueueRun(threadId, randomId("q"), {});
      await store.nextQueuedRun(threadId);
      await store.acquireLease(threadId, "instance-b", 60_000);
      await store.releaseLease(threadId, "instance-b");
      await store.updateThread(threadId, { title: "named" }, "default");
      await store.claimExpired("instance-b", 60_000, 10, []);
      await store.releaseAllLeases("instance-a");
      await store.listThreads({ tenantId: "default" });
      await store.countQueuedRuns();
      await store.compact(0); // the run above ended: its deltas go, by the per-shard delete
      await store.ensureThread(randomId("t"), "agent");
      await store.deleteThread(randomId("t"));
      await store.close();
      await pool.end();
    });

    /** The fragments docs/scaling.md lists as fanning out on purpose, each with its reason. */
    function allowedFanOut(): string[] {
      const doc = readFileSync(new URL("../../docs/scaling.md", import.meta.url), "utf8");
      const section = doc.split("<!-- fan-out:start -->")[1]?.split("<!-- fan-out:end -->")[0] ?? "";
      return [...section.matchAll(/^- `([^`]+)`: \S/gm)].map((m) => m[1]!);
    }

    it("EXPLAIN shows one task per distributed scan, or the statement is listed with its reason", async () => {
      expect(recorded.length).toBeGreaterThan(20);
      const allowed = allowedFanOut();
      expect(allowed.length).toBeGreaterThan(0);
      const fanning: string[] = [];
      const seen = new Set<string>();
      for (const st of recorded) {
        const text = st.text.replaceAll(`"${schema}".`, "").replace(/\s+/g, " ").trim();
        if (seen.has(text) || /^\s*(begin|commit|set |select pg_notify|select exists \(select 1 from pg_extension)/i.test(text)) continue;
        seen.add(text);
        const plan = await sql<{ "QUERY PLAN": unknown }>(`explain (format json) ${inlineParams(st.text, st.params)}`);
        const tasks = taskCounts(plan[0]!["QUERY PLAN"]);
        if (tasks.some((n) => n > 1) && !allowed.some((a) => text.includes(a))) fanning.push(`${Math.max(...tasks)} tasks: ${text.slice(0, 160)}`);
      }
      expect(fanning).toEqual([]);
    });
  });
});

/** Every "Task Count" in a Citus JSON plan. */
function taskCounts(plan: unknown): number[] {
  const out: number[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === "object") {
      for (const [k, v] of Object.entries(node)) {
        if (k === "Task Count" && typeof v === "number") out.push(v);
        else walk(v);
      }
    }
  };
  walk(plan);
  return out;
}
