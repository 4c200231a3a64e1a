/**
 * SQL of a thread's checkpoint outside the append path (which writes it, sql/events.ts): the
 * parts (a full fold and patches on it, migration 0008) and the single row releases before them
 * wrote (table checkpoints, 0005), read together; the newer of the two is the checkpoint.
 */
import type { Checkpoint, FoldState } from "../../../protocol/checkpoint.ts";
import { applyFoldPatch, type FoldPatch } from "../../../protocol/checkpoint-patch.ts";
import { toMs, toNum, type Queryable } from "../db.ts";

/** A stored part as the read aggregates it (json: numbers are numbers, the time in ms). */
interface PartJson {
  seq: number;
  base: number | null;
  part: FoldState | FoldPatch;
  bytes: number;
  at: number;
}

export interface CheckpointColumns {
  checkpoint_parts: PartJson[] | null;
  checkpoint_seq: unknown;
  checkpoint_fold: FoldState | null;
  checkpoint_at: unknown;
}

/**
 * The columns of CheckpointColumns for the thread `threadId` (an SQL expression), to select in a
 * query of its own or beside the thread row. The parts come as one json array in seq order: one
 * row per thread whatever the number of patches.
 */
export function checkpointColumnsSql(s: string, threadId: string, within?: string): string {
  // `within`: an array of the statement's threads, named on the parts as well, for Citus's pruning (shards.ts)
  const pruned = within ? ` and p.thread_id = any(${within})` : "";
  return `(select json_agg(json_build_object('seq', p.seq, 'base', p.base_seq, 'part', p.part, 'bytes', p.bytes,
                                            'at', floor(extract(epoch from p.created_at) * 1000)) order by p.seq)
             from ${s}.checkpoint_parts p where p.thread_id = ${threadId}${pruned}) as checkpoint_parts,
          k.seq as checkpoint_seq, k.fold as checkpoint_fold, k.created_at as checkpoint_at`;
}

/** The thread's checkpoint, or null. Rows are trusted: only the writer puts them there. */
export async function selectCheckpoint(db: Queryable, s: string, threadId: string): Promise<Checkpoint | null> {
  const { rows } = await db.query<CheckpointColumns>(
    `select ${checkpointColumnsSql(s, "$1::text")}
       from (select 1) one
       left join ${s}.checkpoints k on k.thread_id = $1::text`,
    [threadId],
  );
  return checkpointFromColumns(rows[0]!);
}

/**
 * The checkpoint the columns stand for: the parts' fold (the last full one with the patches that
 * follow it link by link; a patch whose base is not the fold before it stops the chain there,
 * which leaves an older checkpoint, still correct) or the older release's row, whichever is newer.
 */
export function checkpointFromColumns(row: CheckpointColumns): Checkpoint | null {
  let chain: { seq: number; fold: FoldState; at: number; fullBytes: number; patchBytes: number } | null = null;
  for (const p of row.checkpoint_parts ?? []) {
    if (p.base === null) chain = { seq: p.seq, fold: p.part as FoldState, at: p.at, fullBytes: p.bytes, patchBytes: 0 };
    else if (chain && chain.seq === p.base) {
      const fold = applyFoldPatch(chain.fold, p.part as FoldPatch);
      chain = { seq: p.seq, fold, at: p.at, fullBytes: chain.fullBytes, patchBytes: chain.patchBytes + p.bytes };
    }
  }
  const legacy = row.checkpoint_fold === null ? null : checkpointFromRow(row.checkpoint_seq, row.checkpoint_fold, row.checkpoint_at);
  if (!chain) return legacy;
  if (legacy && legacy.seq > chain.seq) return legacy;
  return {
    ...checkpointFromRow(chain.seq, chain.fold, chain.at),
    parts: { fullBytes: chain.fullBytes, patchBytes: chain.patchBytes },
  };
}

/** A checkpoint row as read. The fold was built before its commit: its position and time are the row's. */
export function checkpointFromRow(seqCol: unknown, fold: FoldState, createdAt: unknown): Checkpoint {
  const seq = toNum(seqCol);
  return { seq, fold: { ...fold, lastSeq: seq, lastAt: toMs(createdAt) } };
}
