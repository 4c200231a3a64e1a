/**
 * SQL of the compacted deltas (migration 0009, protocol/merged-deltas.ts): written in the flush
 * that carries a run's end, read by catch-ups in place of the stretches of the log they stand for.
 */
import type { StoredEvent } from "../../../protocol/events.ts";
import type { MergedDelta } from "../../../protocol/merged-deltas.ts";
import { toMs, toNum, type Queryable, type Statement } from "../db.ts";

/**
 * The rows of the appends that carry merged stretches, or null when none does. A row is written
 * only for a thread whose log holds its events already (seq <= last_seq, read under the row lock
 * appendBatch took in the same transaction): the stretches are of committed deltas, so they stand
 * even when the run's end itself was refused (a lost lease); a deleted thread gets none.
 * created_at: the stretch's last delta's commit time, in ms as the event carried it.
 */
export function insertCompacted(s: string, appends: readonly { threadId: string; compacted?: readonly MergedDelta[] }[]): Statement | null {
  const cols = { threads: [] as string[], seqs: [] as number[], froms: [] as number[], runs: [] as (string | null)[], types: [] as string[], data: [] as string[], ats: [] as number[] };
  for (const a of appends) {
    for (const { fromSeq, event } of a.compacted ?? []) {
      cols.threads.push(a.threadId);
      cols.seqs.push(event.seq);
      cols.froms.push(fromSeq);
      cols.runs.push(event.runId);
      cols.types.push(event.type);
      cols.data.push(JSON.stringify(event.data));
      cols.ats.push(event.at);
    }
  }
  if (cols.threads.length === 0) return null;
  return {
    text: `insert into ${s}.compacted_deltas (thread_id, seq, from_seq, run_id, type, data, created_at)
     select c.thread_id, c.seq, c.from_seq, c.run_id, c.type, c.data::jsonb, timestamptz 'epoch' + c.at * interval '1 millisecond'
     from unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::float8[])
       as c(thread_id, seq, from_seq, run_id, type, data, at)
     join ${s}.threads t on t.thread_id = c.thread_id and c.seq <= t.last_seq and t.thread_id = any($1::text[])
     on conflict (thread_id, seq) do nothing`,
    params: [cols.threads, cols.seqs, cols.froms, cols.runs, cols.types, cols.data, cols.ats],
  };
}

interface CompactedRow {
  thread_id: string;
  seq: unknown;
  from_seq: unknown;
  run_id: string | null;
  type: string;
  data: unknown;
  created_at: unknown;
}

/** The thread's merged stretches that end after `after`, in log order, at most `limit`. */
export async function readCompacted(db: Queryable, s: string, threadId: string, after: number, limit: number): Promise<MergedDelta[]> {
  const { rows } = await db.query<CompactedRow>(
    `select thread_id, seq, from_seq, run_id, type, data, created_at
     from ${s}.compacted_deltas
     where thread_id = $1::text and seq > $2::bigint
     order by seq
     limit $3::int`,
    [threadId, after, limit],
    "read_compacted",
  );
  return rows.map((row) => ({
    fromSeq: toNum(row.from_seq),
    // Trusted as event rows are: only a run's end writes them, from its committed events.
    event: { type: row.type, data: row.data, threadId: row.thread_id, seq: toNum(row.seq), runId: row.run_id, at: toMs(row.created_at) } as StoredEvent,
  }));
}
