/**
 * Retention's deletes (store.compact, server/engine/retention.ts calls it each round). On one
 * node (Postgres, PGlite, Citus with DATABASE_DISTRIBUTE=off): one statement, as it always was.
 * On Citus shards, that statement is a multi-shard delete: one transaction on every worker at
 * once, holding row locks on every shard until the slowest commits, and a two-phase commit over
 * all of them. There, retention goes shard by shard instead: the runs past the cut-off are read
 * (a read without a lock, every shard), grouped by their thread's shard (shards.ts), and each
 * shard's are deleted in statements of at most RUNS_PER_DELETE runs, each a router statement on
 * that shard alone, one after another. A round reads again until nothing is left.
 *
 * Rejected: run_command_on_shards (one command per shard table, all at once, by shard name),
 * which cannot join a shard of runs to its co-located shard of events, and runs in parallel on
 * every shard, the load spike this avoids.
 */
import { STREAM_EVENT_TYPES } from "../../protocol/events.ts";
import type { Queryable } from "./db.ts";
import type { Shards } from "./shards.ts";
import { type CompactableRun, deleteStreamEvents, deleteStreamEventsOfRuns, selectCompactableRuns } from "./sql/retention.ts";

/** Runs read per candidate read: one answer of a few hundred rows (two ids each). */
export const CANDIDATE_RUNS = 500;
/**
 * Runs per delete: one statement's locks, held for its deletes (a run's stream events are
 * typically hundreds of rows, so a statement deletes some thousands, tens of milliseconds).
 */
export const RUNS_PER_DELETE = 50;

export interface CompactionDeps {
  db: Queryable;
  /** the schema, quoted */
  s: string;
  shards: Shards;
  retry: <T>(fn: () => Promise<T>) => Promise<T>;
}

/** Deletes the stream events (and compacted stretches) of runs settled over `olderThanMs` ago; returns how many events. */
export async function compactStreamEvents(deps: CompactionDeps, olderThanMs: number): Promise<number> {
  const { db, s, shards, retry } = deps;
  if (!(await shards.onShards())) return retry(() => deleteStreamEvents(db, s, olderThanMs, STREAM_EVENT_TYPES));
  let deleted = 0;
  // Runs a delete has been given: a read that brings only these again makes no progress (a run
  // whose row changed between the read and its delete), and ends the round.
  const given = new Set<string>();
  const key = (r: CompactableRun) => `${r.threadId}\u0000${r.runId}`;
  for (;;) {
    const read = await retry(() => selectCompactableRuns(db, s, olderThanMs, STREAM_EVENT_TYPES, CANDIDATE_RUNS));
    const runs = read.filter((r) => !given.has(key(r)));
    if (runs.length === 0) break;
    for (const r of runs) given.add(key(r));
    for (const group of await retry(() => shards.group(runs, (r) => r.threadId))) {
      for (let i = 0; i < group.length; i += RUNS_PER_DELETE) {
        const batch = group.slice(i, i + RUNS_PER_DELETE);
        // Retried as a whole: a delete again after a lost reply deletes nothing more.
        deleted += await retry(() => deleteStreamEventsOfRuns(db, s, batch, olderThanMs, STREAM_EVENT_TYPES));
      }
    }
    if (read.length < CANDIDATE_RUNS) break;
  }
  return deleted;
}
