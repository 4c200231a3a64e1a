/**
 * The lock-wait sampler (a child process of the benchmark, started when Threadline on Postgres
 * is measured): while a scenario runs, it reads `pg_stat_activity` every SAMPLE_MS and keeps the
 * backends that wait on a heavyweight lock (`wait_event_type = 'Lock'`: a row, a transaction id,
 * a relation) and hold or want a lock on a relation of the bench's schema, so other work on the
 * same server (other schemas, other databases) is not counted.
 *
 * A sampler rather than `log_lock_waits`: that setting needs a superuser's configuration change
 * and logs a wait only after `deadlock_timeout` (1 s by default), far above the 20 ms asked of a
 * stream. What sampling gives: every wait of 2 × SAMPLE_MS or more is seen; a wait's length is at
 * least its last sighting minus its first, and at most how long its statement had been running
 * when last seen (`clock_timestamp() - query_start`). Its own process, so its queries cost the
 * measured systems no CPU of theirs (they cost the database a little, which is said in the docs).
 */
import pg from "pg";
import { type LockFigures, type ParentMessage, send, serveChild } from "./child.ts";

const databaseUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const SAMPLE_MS = 5;

const WAITING = `
  SELECT a.pid, a.query_start::text AS started, a.wait_event,
         left(regexp_replace(a.query, '[[:space:]]+', ' ', 'g'), 160) AS query,
         -- Who it waits for: the statement of the first session holding what it wants. 160
         -- characters tell the heartbeat from the flush (both open on the same locking CTE).
         (SELECT left(regexp_replace(b.query, '[[:space:]]+', ' ', 'g'), 160)
            FROM pg_stat_activity b WHERE b.pid = (pg_blocking_pids(a.pid))[1]) AS blocker,
         (SELECT format('%s %s classid=%s objid=%s', l.locktype, l.mode, l.classid, l.objid)
            FROM pg_locks l WHERE l.pid = a.pid AND NOT l.granted LIMIT 1) AS wanted,
         extract(epoch FROM clock_timestamp()) * 1000 AS at_ms,
         extract(epoch FROM clock_timestamp() - a.query_start) * 1000 AS running_ms
    FROM pg_stat_activity a
   WHERE a.wait_event_type = 'Lock'
     AND EXISTS (SELECT 1 FROM pg_locks l
                   JOIN pg_class c ON c.oid = l.relation
                   JOIN pg_namespace n ON n.oid = c.relnamespace
                  WHERE l.pid = a.pid AND n.nspname = $1::text)`;

interface Sampling {
  stop(): Promise<LockFigures>;
}

function sample(client: pg.Client, schema: string): Sampling {
  const seen = new Map<string, { first: number; last: number; runningMs: number; what: string }>();
  let samples = 0;
  let stopped = false;
  const t0 = performance.now();
  const loop = (async () => {
    while (!stopped) {
      const at = performance.now();
      const { rows } = await client.query<{ pid: number; started: string; wait_event: string; query: string; blocker: string | null; wanted: string | null; at_ms: number; running_ms: number }>(WAITING, [schema]);
      samples++;
      for (const r of rows) {
        // Sightings on the database's clock: on a busy machine the query may wait before it runs.
        const seenAt = Number(r.at_ms);
        const key = `${r.pid}@${r.started}`;
        const w = seen.get(key) ?? { first: seenAt, last: seenAt, runningMs: 0, what: `${r.wait_event} (${r.wanted ?? "?"}): ${r.query} [blocked by: ${r.blocker ?? "?"}]` };
        w.last = seenAt;
        w.runningMs = Math.max(w.runningMs, Number(r.running_ms));
        seen.set(key, w);
      }
      const wait = SAMPLE_MS - (performance.now() - at);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      const waits = [...seen.values()].sort((a, b) => b.runningMs - a.runningMs);
      return {
        longest: waits[0]?.what,
        waits: waits.length,
        longestSeenMs: Math.max(0, ...waits.map((w) => w.last - w.first)),
        longestStatementMs: Math.max(0, ...waits.map((w) => w.runningMs)),
        samples,
        intervalMs: samples > 0 ? (performance.now() - t0) / samples : Number.NaN,
      };
    },
  };
}

await serveChild(async () => {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "bench-lock-waits" });
  await client.connect();
  let current: Sampling | undefined;
  process.on("message", (raw) => {
    const msg = raw as ParentMessage;
    if (msg.type === "locks-start") current = sample(client, msg.schema);
    if (msg.type === "locks-stop") {
      const s = current;
      current = undefined;
      if (!s) send({ type: "locks", error: "locks-stop without locks-start" });
      else
        s.stop().then(
          (figures) => send({ type: "locks", figures }),
          (err: unknown) => send({ type: "locks", error: err instanceof Error ? err.message : String(err) }),
        );
    }
  });
  return { port: 0, info: `lock-wait sampler, every ${SAMPLE_MS} ms`, close: () => client.end() };
});
