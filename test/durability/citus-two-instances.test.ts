/**
 * Issue 31's acceptance on Citus (CITUS_URL: a coordinator and two workers, set by .ci/run): two
 * server processes given only the coordinator's URL and a fresh DATABASE_SCHEMA. The schema's
 * tables are distributed at their start; 40 runs at once, half started on each instance, all
 * finish, and their threads' events sit on both workers; no Citus planning error in either log.
 * With CITUS_MOVE_TEST=1, also: the shards of 50 streaming runs moved to the other worker.
 * Following a run from the other instance, cancel through it and SIGKILL takeover run on Citus in
 * multiprocess.test.ts and multiprocess-recovery.test.ts with DATABASE_URL=$CITUS_URL (.ci/run).
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SPAWN_READY_BOUND_MS } from "../support/server-process.ts";
import { assertStrictlyIncreasing, type Cluster, isContent, isTerminal, pieces, postRun, startCluster, within } from "../support/multiprocess-kit.ts";
import type { ServerProcess } from "../support/server-process.ts";

const CITUS_URL = process.env.CITUS_URL;
if (!CITUS_URL) console.warn("[citus-two-instances] SKIPPED: CITUS_URL is not set (.ci/run builds Citus and sets it; see docs/scaling.md)");

/** What Citus answers a statement it cannot plan on shards: none may appear in a server's log. */
const CITUS_PLANNING_ERRORS = /could not run distributed query|non-IMMUTABLE|cannot be pushed down|cannot push down/;

describe.skipIf(!CITUS_URL)("two server processes on a Citus coordinator", () => {
  let cluster: Cluster;
  let a: ServerProcess;
  let b: ServerProcess;
  const admin = new pg.Pool({ connectionString: CITUS_URL, max: 2 });

  beforeAll(async () => {
    cluster = await startCluster(CITUS_URL);
    [a, b] = await Promise.all([cluster.spawn("A"), cluster.spawn("B")]);
  }, SPAWN_READY_BOUND_MS + 30_000);

  afterAll(async () => {
    await cluster?.close();
    await admin.end();
  }, 30_000);

  it("distributes threads, workflow_events and runs at start, co-located", async () => {
    const { rows } = await admin.query<{ relname: string; colocationid: number }>(
      `select c.relname, p.colocationid from pg_dist_partition p join pg_class c on c.oid = p.logicalrelid
       join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1::text`,
      [cluster.schema],
    );
    const group = new Map(rows.map((r) => [r.relname, r.colocationid]));
    for (const table of ["threads", "workflow_events", "runs"]) expect(group.get(table)).toBe(group.get("threads"));
  });

  it("40 runs at once, 20 started on each instance, all finish, and their events sit on both workers", async () => {
    const words = pieces("w", 8);
    cluster.upstream.script = () => ({ text: words, chunkDelayMs: 2 });
    const threads = Array.from({ length: 40 }, (_, i) => `citus-${Date.now()}-${i}`);
    const streams = await Promise.all(threads.map((threadId, i) => postRun(i % 2 ? b : a, "default", { threadId, runId: "r1", text: "hello" })));
    const ends = await Promise.all(streams.map((s, i) => within(60_000, s.done, `run ${threads[i]}`, () => cluster.output())));
    for (const frames of ends) {
      expect(frames.filter(isTerminal).map((f) => f.event.type)).toEqual(["RUN_FINISHED"]);
      expect(frames.filter((f) => f.event.type === "TEXT_MESSAGE_CONTENT").map((f) => f.event.delta).join("")).toBe(words.join(""));
    }
    // Where each thread's shard is placed, and how many events each worker holds of them.
    const table = `"${cluster.schema}".workflow_events`;
    const { rows } = await admin.query<{ nodeport: number; threads: number }>(
      `select s.nodeport, count(*)::int as threads
       from unnest($2::text[]) as t(id)
       join citus_shards s on s.table_name = $1::regclass and s.shardid = get_shard_id_for_distribution_column($1::regclass, t.id)
       group by s.nodeport order by s.nodeport`,
      [table, threads],
    );
    expect(rows.map((r) => r.nodeport)).toEqual([5442, 5443]);
    for (const threadId of threads) expect((await cluster.store.read(threadId)).length).toBeGreaterThan(words.length);
    expect(cluster.output()).not.toMatch(CITUS_PLANNING_ERRORS);
  }, 120_000);

  // Opt-in (CITUS_MOVE_TEST=1): passed 3 of 4 runs here; in one, with the machine loaded and the
  // moves taking twice as long, one run of 50 ended with RUN_ERROR (docs/scaling.md, "Moving shards").
  it.runIf(process.env.CITUS_MOVE_TEST === "1")("moves the shards of streaming runs to the other worker: every run finishes, no frame lost or repeated, no 5xx", async () => {
    const words = pieces("m", 30);
    // Each answer holds after 3 words, so that all 50 are mid-answer when the moves start; the
    // rest streams during them, 150 ms a word (about 4 s, several moves' time).
    cluster.upstream.script = () => ({ text: words, holdAfter: 3, chunkDelayMs: 150 });
    const first = cluster.upstream.requests.length;
    const threads = Array.from({ length: 50 }, (_, i) => `move-${Date.now()}-${i}`);
    const streams = await Promise.all(threads.map((threadId, i) => postRun(i % 2 ? b : a, "default", { threadId, runId: "r1", text: "hello" })));
    expect(streams.map((s) => s.status)).toEqual(threads.map(() => 200));
    const requests = await Promise.all(threads.map((_, i) => within(60_000, cluster.upstream.request(first + i), `request ${i}`)));
    await Promise.all(requests.map((r) => within(60_000, r.heldAt(3), `request ${r.n} held`)));

    // Every shard group holding one of these threads, moved to the worker it is not on.
    const table = `"${cluster.schema}".threads`;
    const { rows: placed } = await admin.query<{ shardid: string; nodeport: number }>(
      `select distinct s.shardid::text, s.nodeport
       from unnest($2::text[]) as t(id)
       join citus_shards s on s.table_name = $1::regclass and s.shardid = get_shard_id_for_distribution_column($1::regclass, t.id)`,
      [table, threads],
    );
    const moveStarted = Date.now();
    let movedDuringStreams = 0;
    let streaming = true;
    const moving = (async () => {
      for (const p of placed) {
        await admin.query(
          `select citus_move_shard_placement($1::bigint, '127.0.0.1', $2::int, '127.0.0.1', $3::int, shard_transfer_mode => 'block_writes')`,
          [p.shardid, p.nodeport, p.nodeport === 5442 ? 5443 : 5442],
        );
        if (streaming) movedDuringStreams++;
      }
    })();
    for (const r of requests) r.release();
    const ends = await Promise.all(streams.map((s, i) => within(120_000, s.done, `run ${threads[i]}`, () => cluster.output())));
    streaming = false;
    const streamedMs = Date.now() - moveStarted;
    await moving;
    console.log(`[citus-move] ${placed.length} shard groups moved in ${Date.now() - moveStarted} ms; ${movedDuringStreams} of them while the 50 runs streamed (${streamedMs} ms)`);
    expect(movedDuringStreams).toBeGreaterThan(0);
    const errors = ends.flatMap((frames) => frames.filter((f) => f.event.type === "RUN_ERROR").map((f) => JSON.stringify(f.event)));
    expect(errors, errors.length ? cluster.output().split("\n").filter((l) => /error|warn|lease|handed/i.test(l)).slice(-40).join("\n") : "").toEqual([]);

    for (const frames of ends) {
      assertStrictlyIncreasing(frames);
      expect(frames.filter(isTerminal).map((f) => f.event.type)).toEqual(["RUN_FINISHED"]);
      expect(frames.filter(isContent).map((f) => f.event.delta)).toEqual(words);
    }
    const { rows: after } = await admin.query<{ shardid: string; nodeport: number }>(
      `select shardid::text, nodeport from citus_shards where table_name = $1::regclass and shardid = any($2::bigint[])`,
      [table, placed.map((p) => p.shardid)],
    );
    const was = new Map(placed.map((p) => [p.shardid, p.nodeport]));
    for (const p of after) expect(p.nodeport).not.toBe(was.get(p.shardid));
    expect(cluster.output()).not.toMatch(CITUS_PLANNING_ERRORS);
  }, 300_000);
});
