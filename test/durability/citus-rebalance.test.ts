/**
 * Issue 31, shards move while runs stream: a Citus cluster of the test's own (a coordinator on
 * :5451 and workers on :5452 and :5453, support/citus-cluster.ts), two server processes on its
 * coordinator streaming 50 runs, and meanwhile the operator's recipe of docs/scaling.md: a third
 * worker (:5454) added with citus_add_node, then citus_rebalance_start and citus_rebalance_wait.
 * Every answer streams until the rebalance has ended, so that every move, its copy and its
 * switch-over, happens under live writes. Then: every run finished, its client got every piece
 * the model sent once and in order (frame ids strictly increasing), no 5xx, followers that
 * connected on the other instance during the moves got the same text, the placements changed
 * (some shards are on the new worker), and no Citus planning error in either log. What the
 * clients saw meanwhile (the longest pause between two events of a run's log) is printed for
 * docs/scaling.md.
 *
 * Skips with a notice where the citus extension or Debian's cluster tools are missing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCitusCluster, citusClusterUnavailable, type CitusCluster } from "../support/citus-cluster.ts";
import { assertStrictlyIncreasing, connect, type Cluster, isContent, isTerminal, type LogWatch, pieces, postRun, startCluster, within } from "../support/multiprocess-kit.ts";
import { createPostgresStore } from "../../server/store/postgres.ts";
import { lastUserText } from "../support/scripted-upstream.ts";
import type { ServerProcess } from "../support/server-process.ts";
import { textOf } from "../support/frame-checks.ts";

const unavailable = citusClusterUnavailable();
if (unavailable) console.warn(`[citus-rebalance] SKIPPED: ${unavailable}`);

const CITUS_PLANNING_ERRORS = /could not run distributed query|non-IMMUTABLE|cannot be pushed down|cannot push down/;
const RUNS = 50;

interface Placement {
  shardid: string;
  nodeport: number;
}

describe.skipIf(unavailable !== null)("shards move while runs stream (a worker added, a rebalance)", () => {
  let citus: CitusCluster | undefined;
  let mp: Cluster | undefined;
  let a: ServerProcess;
  let b: ServerProcess;

  // Bound: four initdb and Postgres starts and two server processes, on 2 shared cores (the
  // clusters alone took 35 s here with a load average of 7).
  beforeAll(async () => {
    citus = await createCitusCluster({
      prefix: "tlrebal",
      coordinatorPort: 5451,
      workerPorts: [5452, 5453],
      sparePorts: [5454],
      // 8 shards per colocation group, not 32: a rebalance onto a third worker moves a third of
      // them, one at a time, and each move's set-up (a publication, a slot, a subscription) costs
      // seconds here; the path each move takes is the same.
      settings: { "citus.shard_count": "8" },
    });
    mp = await startCluster(citus.coordinator.url);
    // Migrated (distributed) here first, so that each server's start only checks it: two servers
    // distributing a fresh schema at once took past the spawn's 60 s bound at a load of 30.
    const migrator = createPostgresStore({ connectionString: citus.coordinator.url, schema: mp.schema });
    await migrator.migrate();
    await migrator.close();
    // The default lease TTL (15 s, a beat every 5 s), not the kit's 6 s: this is what a
    // deployment sees during a rebalance. With 6 s, in 3 of 8 runs here (load average 13 to 22)
    // one instance's beats did not land for over 4 s during a move, its runs stopped writing
    // for recovery, and the test's held upstream made them fail (docs/scaling.md).
    const env = { LEASE_TTL_MS: "15000" };
    [a, b] = await Promise.all([mp.spawn("A", env), mp.spawn("B", env)]);
  }, 240_000);

  // Bound: dropping four clusters (each a stop and a delete) on a loaded machine.
  afterAll(async () => {
    await mp?.close();
    await citus?.drop();
  }, 120_000);

  const placements = async (): Promise<Placement[]> =>
    citus!.sql<Placement>(
      `select s.shardid::text as shardid, n.nodeport
       from pg_dist_shard s
       join pg_dist_placement p on p.shardid = s.shardid
       join pg_dist_node n on n.groupid = p.groupid
       join pg_class c on c.oid = s.logicalrelid
       join pg_namespace ns on ns.oid = c.relnamespace
       where ns.nspname = $1::text
       order by s.shardid`,
      [mp!.schema],
    );

  // Bound: the rebalance here (about a third of 16 shard groups moved by logical replication,
  // one after another) plus the runs' ends; a tenth of a core makes it slower, not stuck.
  it("50 runs on two instances stream through citus_add_node and a rebalance: every piece once, every run finished, shards moved", async () => {
    const cluster = mp!;
    let rebalanced!: () => void;
    const rebalanceOver = new Promise<void>((r) => {
      rebalanced = r;
    });
    const words = pieces("w", 5);
    // 5 words, held after 3 until every run is streaming; then one piece every 200 ms until the
    // rebalance is over: 250 pieces a second over the two instances during every move.
    // A run resumed elsewhere (a lost lease) asks again: that request is not held.
    const asked = new Set<string>();
    cluster.upstream.script = (body) => {
      const firstAsk = !asked.has(lastUserText(body));
      asked.add(lastUserText(body));
      return { text: words, ...(firstAsk && { holdAfter: 3 }), chunkDelayMs: 200, more: { piece: (i) => ` m${i + 1}`, until: rebalanceOver } };
    };
    const first = cluster.upstream.requests.length;
    const threads = Array.from({ length: RUNS }, (_, i) => `rebal-${Date.now()}-${i}`);
    const watches: LogWatch[] = threads.map((t) => cluster.watch(t));
    const streams = await Promise.all(threads.map((threadId, i) => postRun(i % 2 ? b : a, "default", { threadId, runId: "r1", text: `hello ${i}` })));
    expect(streams.map((s) => s.status)).toEqual(threads.map(() => 200));
    const requests = await Promise.all(threads.map((_, i) => within(60_000, cluster.upstream.request(first + i), `request ${i}`, () => cluster.output())));
    await Promise.all(requests.map((r) => within(60_000, r.heldAt(3), `request ${r.n} held`)));
    const requestOf = new Map(requests.map((r) => [lastUserText(r.body), r]));

    const before = await placements();
    expect(new Set(before.map((p) => p.nodeport))).toEqual(new Set([5452, 5453]));
    for (const r of requests) r.release();

    // The operator's recipe (docs/deploying.md): add the worker, rebalance, wait.
    const started = Date.now();
    const marks: string[] = [];
    const mark = (what: string) => marks.push(`${what} ${Date.now() - started}`);
    const added = await citus!.addWorker();
    mark("added");
    const job = (await citus!.sql<{ job: string }>(`select citus_rebalance_start()::text as job`))[0]!.job;
    // Followers on the other instance, connected while the moves run: a fresh read of a live run.
    const followed = threads.filter((_, i) => i % 5 === 0);
    const followers = await Promise.all(followed.map((threadId) => connect(threads.indexOf(threadId) % 2 ? a : b, "default", threadId)));
    expect(followers.map((f) => f.status)).toEqual(followed.map(() => 200));
    mark("rebalance started");
    let polling = true;
    const poll = (async () => {
      let last = JSON.stringify(before);
      while (polling) {
        const now = JSON.stringify(await placements());
        if (now !== last) mark("a move done");
        last = now;
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    await citus!.sql(`select citus_rebalance_wait()`);
    mark("rebalance over");
    polling = false;
    await poll;
    const rebalanceMs = Date.now() - started;
    rebalanced();

    const ends = await Promise.all(streams.map((s, i) => within(120_000, s.done, `run ${threads[i]}`, () => cluster.output())));
    const endedMs = Date.now() - started;
    const after = await placements();
    const [jobRow] = await citus!.sql<{ state: string; tasks: number; done: number }>(
      `select j.state::text, count(t.task_id)::int as tasks, count(t.task_id) filter (where t.status = 'done')::int as done
       from pg_dist_background_job j left join pg_dist_background_task t on t.job_id = j.job_id
       where j.job_id = $1::bigint group by j.state`,
      [job],
    );

    // What a client saw meanwhile: the longest gap between two events of a run's log.
    const gapAt: number[] = [];
    const gaps = watches.map((w) => {
      const at = w.seen.map((l) => l.seenAt).filter((t) => t >= started);
      let m = 0;
      let when = 0;
      for (let i = 1; i < at.length; i++) if (at[i]! - at[i - 1]! > m) [m, when] = [at[i]! - at[i - 1]!, at[i - 1]! - started];
      gapAt.push(when);
      return m;
    });
    const worst = gaps.indexOf(Math.max(...gaps));
    console.log(`[citus-rebalance] timeline (ms after the add): ${marks.join(", ")}; the longest pause began at ${gapAt[worst]} ms`);
    const errors = ends.flatMap((frames) => frames.filter((f) => f.event.type === "RUN_ERROR").map((f) => JSON.stringify(f.event)));
    const warnings = () => cluster.output().split("\n").filter((l) => /"level":[45]0/.test(l)).slice(0, 40).join("\n");
    expect(errors, warnings()).toEqual([]);
    const sorted = [...gaps].sort((x, y) => x - y);
    const moved = after.filter((p) => before.find((q) => q.shardid === p.shardid)?.nodeport !== p.nodeport);
    console.log(
      `[citus-rebalance] ${moved.length} of ${after.length} shards moved (${jobRow?.done}/${jobRow?.tasks} tasks, job ${jobRow?.state}) in ${rebalanceMs} ms; ` +
        `runs ended ${endedMs} ms after the add; longest pause in a run's log: p50 ${sorted[Math.floor(sorted.length / 2)]} ms, max ${sorted.at(-1)} ms`,
    );

    for (const [i, frames] of ends.entries()) {
      const sent = requestOf.get(`hello ${i}`)!.pieces;
      assertStrictlyIncreasing(frames);
      expect(frames.filter(isTerminal).map((f) => f.event.type), `run ${threads[i]}`).toEqual(["RUN_FINISHED"]);
      // 0 lost, 0 repeated: the client got exactly the pieces the model sent, in order
      expect(frames.filter(isContent).map((f) => f.event.delta)).toEqual(sent);
      expect(sent.length).toBeGreaterThan(words.length);
    }
    const followerEnds = await Promise.all(followers.map((f, i) => within(120_000, f.done, `follower of ${followed[i]}`)));
    for (const [i, frames] of followerEnds.entries()) {
      assertStrictlyIncreasing(frames);
      expect(frames.filter(isTerminal).map((f) => f.event.type)).toEqual(["RUN_FINISHED"]);
      expect(textOf(frames)).toBe(requestOf.get(`hello ${threads.indexOf(followed[i]!)}`)!.pieces.join(""));
    }

    expect(jobRow).toMatchObject({ state: "finished" });
    expect(moved.length).toBeGreaterThan(0);
    expect(after.some((p) => p.nodeport === added.port)).toBe(true);
    expect(after.map((p) => p.shardid)).toEqual(before.map((p) => p.shardid)); // moved, not split or lost
    expect(cluster.output()).not.toMatch(CITUS_PLANNING_ERRORS);
    expect(cluster.output()).not.toMatch(/"status":5\d\d/);
  }, 300_000);
});
