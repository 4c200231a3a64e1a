/** SQL of the runs table outside the append path: get, enqueue, next queued, the queue's length. */
import { toMs, type Queryable } from "../db.ts";
import type { RunRow, RunStatus } from "../types.ts";

interface RunDbRow {
  run_id: string;
  thread_id: string;
  status: string;
  input: unknown;
  created_at: unknown;
  updated_at: unknown;
}

const RUN_COLUMNS = `run_id, thread_id, status, input, created_at, updated_at`;

function runFromRow(row: RunDbRow): RunRow {
  return {
    runId: row.run_id,
    threadId: row.thread_id,
    status: row.status as RunStatus,
    input: row.input,
    createdAt: toMs(row.created_at),
    updatedAt: toMs(row.updated_at),
  };
}

export async function selectRun(db: Queryable, s: string, threadId: string, runId: string): Promise<RunRow | null> {
  const { rows } = await db.query<RunDbRow>(
    `select ${RUN_COLUMNS} from ${s}.runs where thread_id = $1::text and run_id = $2::text`,
    [threadId, runId],
  );
  return rows[0] ? runFromRow(rows[0]) : null;
}

/**
 * Records a queued run; false when the thread already has a run of that id (queued or not), which
 * then keeps its input. A missing thread fails with foreign_key_violation (23503).
 */
export async function insertQueuedRun(
  db: Queryable,
  s: string,
  threadId: string,
  runId: string,
  input: unknown,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `insert into ${s}.runs (run_id, thread_id, status, input)
     values ($1::text, $2::text, 'queued', $3::jsonb)
     on conflict (thread_id, run_id) do nothing`,
    [runId, threadId, JSON.stringify(input ?? null)],
  );
  return rowCount === 1;
}

export async function selectNextQueuedRun(db: Queryable, s: string, threadId: string): Promise<RunRow | null> {
  const { rows } = await db.query<RunDbRow>(
    `select ${RUN_COLUMNS}
     from ${s}.runs
     where thread_id = $1::text and status = 'queued'
     order by queue_pos
     limit 1`,
    [threadId],
  );
  return rows[0] ? runFromRow(rows[0]) : null;
}

/**
 * Runs queued over every thread: the partial index on queued runs (runs_queued_idx) holds only
 * those, so the count reads the queue, never the runs that ended. It spans threads: a metric,
 * read once per scrape.
 */
export async function countQueuedRuns(db: Queryable, s: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from ${s}.runs where status = 'queued'`);
  return rows[0]?.n ?? 0;
}
