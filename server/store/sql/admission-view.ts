/**
 * What a run's admission decides from, in one statement: the thread row, whether the run id is
 * taken, and the thread's checkpoint. Rejected: three reads (thread, run, checkpoint), which put
 * three round trips before a run's first commit, and so before its RUN_STARTED.
 */
import type { Queryable } from "../db.ts";
import type { AdmissionView } from "../types.ts";
import { checkpointColumnsSql, checkpointFromColumns, type CheckpointColumns } from "./checkpoints.ts";
import { threadFromRow, type ThreadDbRow } from "./threads.ts";

interface ViewDbRow extends ThreadDbRow, CheckpointColumns {
  run_taken: boolean;
}

export async function selectAdmissionView(db: Queryable, s: string, threadId: string, runId: string): Promise<AdmissionView> {
  const { rows } = await db.query<ViewDbRow>(
    `select t.thread_id, t.agent_id, t.tenant_id, t.status, t.last_seq, t.active_run_id, t.lease_owner,
            t.lease_expires_at, t.created_at, t.updated_at,
            exists (select 1 from ${s}.runs r where r.thread_id = t.thread_id and r.run_id = $2::text) as run_taken,
            ${checkpointColumnsSql(s, "t.thread_id")}
       from ${s}.threads t
       left join ${s}.checkpoints k on k.thread_id = t.thread_id
      where t.thread_id = $1::text`,
    [threadId, runId],
  );
  const row = rows[0];
  if (!row) return { thread: null, runTaken: false, checkpoint: null };
  return { thread: threadFromRow(row), runTaken: row.run_taken, checkpoint: checkpointFromColumns(row) };
}
