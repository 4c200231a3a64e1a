/**
 * SQL of retention (server/store/compaction.ts runs it): the stream-level events (deltas and the
 * like) of runs that are waiting or ended and whose row was last updated before the cut-off are
 * deleted, and with them the compacted stretches of those runs (migration 0009), which stand for
 * the deleted deltas. The cut-off is an age by the database's clock (`now()`), never a caller's.
 */
import type { Queryable } from "../db.ts";
import { SETTLED_RUN_STATUSES_SQL } from "./lifecycle.ts";

/**
 * On one node: every such run's stream events and compacted stretches, in one statement. Returns
 * how many events were deleted.
 */
export async function deleteStreamEvents(db: Queryable, s: string, olderThanMs: number, streamTypes: readonly string[]): Promise<number> {
  const { rowCount } = await db.query(
    `with compacted as (
       delete from ${s}.compacted_deltas c
       using ${s}.runs r
       where c.run_id = r.run_id
         and c.thread_id = r.thread_id
         and r.status in ${SETTLED_RUN_STATUSES_SQL}
         and r.updated_at < now() - $1::float8 * interval '1 millisecond'
     )
     delete from ${s}.workflow_events e
     using ${s}.runs r
     where e.run_id = r.run_id
       and e.thread_id = r.thread_id
       and e.type = any($2::text[])
       and r.status in ${SETTLED_RUN_STATUSES_SQL}
       and r.updated_at < now() - $1::float8 * interval '1 millisecond'`,
    [olderThanMs, streamTypes],
  );
  return rowCount;
}

export interface CompactableRun {
  threadId: string;
  runId: string;
}

/**
 * On Citus, the first step: at most `limit` runs past the cut-off that still have stream events
 * or compacted stretches. A read without a lock; on shards it asks every shard (listed in
 * docs/scaling.md), each answering from its own co-located tables. The runs' index on updated_at
 * (settled runs only) bounds the scan to runs past the cut-off.
 */
export async function selectCompactableRuns(
  db: Queryable,
  s: string,
  olderThanMs: number,
  streamTypes: readonly string[],
  limit: number,
): Promise<CompactableRun[]> {
  const { rows } = await db.query<{ thread_id: string; run_id: string }>(
    `select r.thread_id, r.run_id
     from ${s}.runs r
     where r.status in ${SETTLED_RUN_STATUSES_SQL}
       and r.updated_at < now() - $1::float8 * interval '1 millisecond'
       and (exists (select 1 from ${s}.workflow_events e
                    where e.thread_id = r.thread_id and e.run_id = r.run_id and e.type = any($2::text[]))
            or exists (select 1 from ${s}.compacted_deltas c
                       where c.thread_id = r.thread_id and c.run_id = r.run_id))
     limit $3::int`,
    [olderThanMs, streamTypes, limit],
  );
  return rows.map((r) => ({ threadId: r.thread_id, runId: r.run_id }));
}

/**
 * On Citus, the second step: the stream events and compacted stretches of these runs, all of one
 * shard's threads (compaction.ts groups them), so that the statement is a router statement on
 * that shard: its locks are on one node, for one batch. Every table is filtered on the threads
 * (Citus prunes each by its own filter). The run's status and age are checked again on its row:
 * a run that was waiting and resumed since the read keeps its events. A (thread, run) pair of
 * the cross product that is not a candidate is deleted only if it is past the cut-off too, which
 * is what retention does anyway. Returns how many events were deleted.
 */
export async function deleteStreamEventsOfRuns(
  db: Queryable,
  s: string,
  runs: readonly CompactableRun[],
  olderThanMs: number,
  streamTypes: readonly string[],
): Promise<number> {
  const threadIds = [...new Set(runs.map((r) => r.threadId))];
  const runIds = [...new Set(runs.map((r) => r.runId))];
  const { rowCount } = await db.query(
    `with compacted_of_runs as (
       delete from ${s}.compacted_deltas c
       using ${s}.runs r
       where c.thread_id = any($1::text[]) and r.thread_id = any($1::text[])
         and c.run_id = any($2::text[])
         and c.thread_id = r.thread_id and c.run_id = r.run_id
         and r.status in ${SETTLED_RUN_STATUSES_SQL}
         and r.updated_at < now() - $3::float8 * interval '1 millisecond'
     )
     delete from ${s}.workflow_events e
     using ${s}.runs r
     where e.thread_id = any($1::text[]) and r.thread_id = any($1::text[])
       and e.run_id = any($2::text[])
       and e.thread_id = r.thread_id and e.run_id = r.run_id
       and e.type = any($4::text[])
       and r.status in ${SETTLED_RUN_STATUSES_SQL}
       and r.updated_at < now() - $3::float8 * interval '1 millisecond'`,
    [threadIds, runIds, olderThanMs, streamTypes],
  );
  return rowCount;
}
