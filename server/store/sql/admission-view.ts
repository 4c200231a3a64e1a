/**
 * What runs' admissions decide from, in one statement for any number of them: each thread's row,
 * whether the run id is taken, and the thread's checkpoint. Rejected: three reads per admission
 * (thread, run, checkpoint), which put three round trips before a run's first commit, and so
 * before its RUN_STARTED; and one statement per admission, which a burst of hundreds of runs
 * queued on the pool's connections (gathered-reads.ts gathers them).
 */
import type { Queryable } from "../db.ts";
import type { AdmissionView } from "../types.ts";
import { checkpointColumnsSql, checkpointFromColumns, type CheckpointColumns } from "./checkpoints.ts";
import { threadFromRow, type ThreadDbRow } from "./threads.ts";

interface ViewDbRow extends ThreadDbRow, CheckpointColumns {
  ord: unknown;
  run_taken: boolean;
}

export interface AdmissionKey {
  threadId: string;
  runId: string;
}

/**
 * An admission's view as one statement answers it: `checkpoint` undefined when the thread's
 * checkpoint is larger than `inlineBytes` (the caller reads it in parts, selectCheckpoint).
 */
export type AdmissionViewRow = Omit<AdmissionView, "checkpoint"> & { checkpoint: AdmissionView["checkpoint"] | undefined };

/** One view per key, in the keys' order; a key may repeat (two starts of one thread). */
export async function selectAdmissionViews(db: Queryable, s: string, keys: readonly AdmissionKey[], inlineBytes: number): Promise<AdmissionViewRow[]> {
  const { rows } = await db.query<ViewDbRow>(
    `select q.ord, t.thread_id, t.agent_id, t.tenant_id, t.status, t.last_seq, t.active_run_id, t.lease_owner,
            t.lease_expires_at, t.created_at, t.updated_at,
            exists (select 1 from ${s}.runs r where r.thread_id = t.thread_id and r.thread_id = any($1::text[]) and r.run_id = q.run_id) as run_taken,
            ${checkpointColumnsSql(s, "t.thread_id", "$3::bigint", "$1::text[]")}
       from unnest($1::text[], $2::text[]) with ordinality as q(thread_id, run_id, ord)
       join ${s}.threads t on t.thread_id = q.thread_id and t.thread_id = any($1::text[])
       left join ${s}.checkpoints k on k.thread_id = t.thread_id and k.thread_id = any($1::text[])`,
    [keys.map((k) => k.threadId), keys.map((k) => k.runId), inlineBytes],
    "admission_views",
  );
  const views: AdmissionViewRow[] = keys.map(() => ({ thread: null, runTaken: false, checkpoint: null }));
  for (const row of rows) {
    views[Number(row.ord) - 1] = { thread: threadFromRow(row), runTaken: row.run_taken, checkpoint: checkpointFromColumns(row) };
  }
  return views;
}
