/**
 * SQL of a run's status as the background-run API answers it (GET .../runs/:runId): the newest
 * admission of the client's run id (protocol/run-ids.ts: a run resumed under its own id is
 * admitted again as `<id>\u001f2`, ...), its failure if it failed, and its webhook delivery.
 * One statement, all of it on the thread's rows (a router statement on Citus: each table names
 * the thread, `= $1`, for Citus to prune it). The run's last
 * ending event (protocol/lifecycle.ts's list, passed as a parameter rather than restated) carries
 * the error or the suspension's reason; a later completion leaves both null.
 */
import { RUN_ENDING_EVENT_TYPES } from "../../../protocol/lifecycle.ts";
import { ADMISSION_SEPARATOR } from "../../../protocol/run-ids.ts";
import { toMs, toMsOrNull, type Queryable } from "../db.ts";
import type { RunStatus } from "../types.ts";

export interface RunStatusRow {
  /** the log's id of the newest admission */
  runId: string;
  status: RunStatus;
  /** workflow.failed's error, when the run failed */
  error: { code: string; message: string } | null;
  /** workflow.suspended's reason, when the run is waiting */
  suspendReason: string | null;
  createdAt: number;
  updatedAt: number;
  webhook: WebhookDelivery | null;
}

/** Where a run's end was posted, as the outbox records it. */
export interface WebhookDelivery {
  url: string;
  attempts: number;
  deliveredAt: number | null;
  gaveUpAt: number | null;
  /** when the next attempt is due (null once delivered or given up) */
  nextAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
}

interface Row {
  run_id: string;
  status: string;
  ended: { error?: { code: string; message: string } | null; reason?: string | null } | null;
  created_at: unknown;
  updated_at: unknown;
  w_url: string | null;
  w_attempts: number | null;
  w_delivered_at: unknown;
  w_gave_up_at: unknown;
  w_next_at: unknown;
  w_last_status: number | null;
  w_last_error: string | null;
}

export async function selectRunStatus(db: Queryable, s: string, threadId: string, wireRunId: string): Promise<RunStatusRow | null> {
  // Admissions of the client's id: the id itself, or it followed by the separator and a number.
  // `left(...) = ...` rather than LIKE: a client's id may hold % and _.
  const { rows } = await db.query<Row>(
    `select r.run_id, r.status, r.created_at, r.updated_at,
            (select jsonb_build_object('error', e.data->'error', 'reason', e.data->'reason') from ${s}.workflow_events e
             where e.thread_id = $1::text and e.thread_id = r.thread_id and e.run_id = r.run_id and e.type = any($4::text[])
             order by e.seq desc limit 1) as ended,
            w.url as w_url, w.attempts as w_attempts, w.delivered_at as w_delivered_at, w.gave_up_at as w_gave_up_at,
            w.next_at as w_next_at, w.last_status as w_last_status, w.last_error as w_last_error
     from ${s}.runs r
     left join ${s}.webhook_outbox w on w.thread_id = $1::text and w.thread_id = r.thread_id and w.run_id = r.run_id
     where r.thread_id = $1::text
       and (r.run_id = $2::text or left(r.run_id, length($2::text) + 1) = $2::text || $3::text)
     order by r.created_at desc, length(r.run_id) desc
     limit 1`,
    [threadId, wireRunId, ADMISSION_SEPARATOR, RUN_ENDING_EVENT_TYPES],
  );
  const row = rows[0];
  if (!row) return null;
  const delivered = toMsOrNull(row.w_delivered_at);
  const gaveUp = toMsOrNull(row.w_gave_up_at);
  return {
    runId: row.run_id,
    status: row.status as RunStatus,
    error: row.ended?.error ?? null,
    suspendReason: row.ended?.reason ?? null,
    createdAt: toMs(row.created_at),
    updatedAt: toMs(row.updated_at),
    webhook:
      row.w_url === null
        ? null
        : {
            url: row.w_url,
            attempts: row.w_attempts ?? 0,
            deliveredAt: delivered,
            gaveUpAt: gaveUp,
            nextAt: delivered === null && gaveUp === null ? toMsOrNull(row.w_next_at) : null,
            lastStatus: row.w_last_status,
            lastError: row.w_last_error,
          },
  };
}
