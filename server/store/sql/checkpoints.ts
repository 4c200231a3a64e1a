/** SQL of the checkpoints table outside the append path (which writes them, sql/events.ts). */
import type { Checkpoint, FoldState } from "../../../protocol/checkpoint.ts";
import { toMs, toNum, type Queryable } from "../db.ts";

/** The thread's checkpoint, or null. Rows are trusted: only the writer puts them there. */
export async function selectCheckpoint(db: Queryable, s: string, threadId: string): Promise<Checkpoint | null> {
  const { rows } = await db.query<{ seq: unknown; fold: FoldState; created_at: unknown }>(
    `select seq, fold, created_at from ${s}.checkpoints where thread_id = $1::text`,
    [threadId],
  );
  const row = rows[0];
  return row ? checkpointFromRow(row.seq, row.fold, row.created_at) : null;
}

/** A checkpoint row as read. The fold was built before its commit: its position and time are the row's. */
export function checkpointFromRow(seqCol: unknown, fold: FoldState, createdAt: unknown): Checkpoint {
  const seq = toNum(seqCol);
  return { seq, fold: { ...fold, lastSeq: seq, lastAt: toMs(createdAt) } };
}
