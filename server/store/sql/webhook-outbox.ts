/**
 * SQL of the webhook outbox (migration 0010, docs/webhooks.md): the rows a run's end writes in
 * its own commit, and what the delivery worker does with them. Times the worker compares are
 * passed in (`$now`, the worker's clock): a claim fenced on `attempts` stays correct whatever the
 * clocks say; a skew only moves when a row counts as due.
 */
import { toMs, toNum, type Queryable, type Statement } from "../db.ts";

/** A run whose terminal event a flush carries: what its delivery says. */
export interface RunEnd {
  threadId: string;
  runId: string;
  /** the run status the end leaves in its row (waiting, completed, failed, cancelled) */
  status: string;
  /** the status a receiver is told (protocol/run-wire-status.ts) */
  wireStatus: string;
  /** JSON of workflow.failed's error, or null */
  error: string | null;
}

/** Where ends go when the run named no URL: the tenant's, else the server's (either may be absent). */
export interface WebhookTargets {
  serverUrl: string | null;
  tenantUrls: ReadonlyMap<string, string>;
}

/**
 * The outbox rows of the runs ending in a flush, in that flush's transaction, after the batch's
 * append (whose runs upsert it reads). A row is written only for a run whose row now has the
 * status its end sets: an end refused (the lease was lost, the thread is gone) leaves the run as
 * it was and writes none. The URL is the run's own (its run.accepted, or the input it was queued
 * with), else its tenant's, else the server's; a run with none of them gets no row. A second end
 * of one run (never written by the engine) would find the row there and add nothing.
 */
export function insertWebhookDeliveries(s: string, ends: readonly RunEnd[], targets: WebhookTargets): Statement {
  const tenants = [...targets.tenantUrls.keys()];
  return {
    text: `insert into ${s}.webhook_outbox (thread_id, run_id, tenant_id, url, status, error, ended_at, next_at)
     select x.thread_id, x.run_id, x.tenant_id, x.url, x.wire_status, x.error::jsonb, now(), now()
     from (
       select r.thread_id, r.run_id, t.tenant_id, e.wire_status, e.error,
              coalesce(r.input->'webhook'->>'url', r.input->'threadlineWebhook'->>'url', tu.url, $5::text) as url
       from unnest($1::text[], $2::text[], $3::text[], $4::text[], $8::text[]) as e(thread_id, run_id, status, error, wire_status)
       join ${s}.runs r on r.thread_id = e.thread_id and r.run_id = e.run_id and r.status = e.status and r.thread_id = any($1::text[])
       join ${s}.threads t on t.thread_id = e.thread_id and t.thread_id = any($1::text[])
       left join unnest($6::text[], $7::text[]) as tu(tenant_id, url) on tu.tenant_id = t.tenant_id
     ) x
     where x.url is not null
     on conflict (thread_id, run_id) do nothing`,
    params: [
      ends.map((e) => e.threadId),
      ends.map((e) => e.runId),
      ends.map((e) => e.status),
      ends.map((e) => e.error),
      targets.serverUrl,
      tenants,
      tenants.map((t) => targets.tenantUrls.get(t)!),
      ends.map((e) => e.wireStatus),
    ],
  };
}

/** A row as a delivery attempt reads it. */
export interface OutboxRow {
  threadId: string;
  runId: string;
  tenantId: string;
  url: string;
  status: string;
  error: { code: string; message: string } | null;
  endedAt: number;
  /** this attempt's number (1 for the first): the fence of its outcome */
  attempts: number;
}

interface DbRow {
  thread_id: string;
  run_id: string;
  tenant_id: string;
  url: string;
  status: string;
  error: { code: string; message: string } | null;
  ended_at: unknown;
  attempts: unknown;
}

/**
 * Rows due at `now`, oldest first: candidates, read without a lock (it spans threads, so on
 * Citus it spans shards, where a lock would not be pushed down); each is then claimed alone.
 */
export async function selectDueDeliveries(db: Queryable, s: string, now: number, limit: number): Promise<{ threadId: string; runId: string }[]> {
  const { rows } = await db.query<{ thread_id: string; run_id: string }>(
    `select thread_id, run_id
     from ${s}.webhook_outbox
     where delivered_at is null and gave_up_at is null and next_at <= to_timestamp($1::float8 / 1000)
     order by next_at
     limit $2::int`,
    [now, limit],
  );
  return rows.map((r) => ({ threadId: r.thread_id, runId: r.run_id }));
}

/**
 * Claims one due row for an attempt: counts it, and moves next_at past the attempt's bound
 * (`claimMs`), so that nobody else takes it meanwhile and, should this instance die, it is due
 * again then. FOR UPDATE SKIP LOCKED on the one row (a router statement): a claimer that finds it
 * locked by another skips it instead of waiting. Null when it is no longer due (delivered, given
 * up or claimed since it was read).
 */
export async function claimDelivery(db: Queryable, s: string, threadId: string, runId: string, now: number, claimMs: number): Promise<OutboxRow | null> {
  const { rows } = await db.query<DbRow>(
    `with due as (
       select thread_id, run_id
       from ${s}.webhook_outbox
       where thread_id = $1::text and run_id = $2::text
         and delivered_at is null and gave_up_at is null and next_at <= to_timestamp($3::float8 / 1000)
       for update skip locked
     )
     update ${s}.webhook_outbox o
     set attempts = o.attempts + 1,
         next_at = to_timestamp(($3::float8 + $4::float8) / 1000)
     from due
     where o.thread_id = due.thread_id and o.run_id = due.run_id
     returning o.thread_id, o.run_id, o.tenant_id, o.url, o.status, o.error, o.ended_at, o.attempts`,
    [threadId, runId, now, claimMs],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    threadId: row.thread_id,
    runId: row.run_id,
    tenantId: row.tenant_id,
    url: row.url,
    status: row.status,
    error: row.error,
    endedAt: toMs(row.ended_at),
    attempts: toNum(row.attempts),
  };
}

/** The attempt `attempt` delivered; false when the row moved on meanwhile (another attempt claimed it). */
export async function markDelivered(db: Queryable, s: string, threadId: string, runId: string, attempt: number, now: number, httpStatus: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `update ${s}.webhook_outbox
     set delivered_at = to_timestamp($4::float8 / 1000), last_status = $5::int, last_error = null
     where thread_id = $1::text and run_id = $2::text and attempts = $3::int and delivered_at is null`,
    [threadId, runId, attempt, now, httpStatus],
  );
  return rowCount === 1;
}

/**
 * The attempt `attempt` failed: due again at `retryAt`, or given up (retryAt null) after the last
 * attempt. Fenced like markDelivered.
 */
export async function markFailed(
  db: Queryable,
  s: string,
  failure: { threadId: string; runId: string; attempt: number; now: number; retryAt: number | null; httpStatus: number | null; error: string },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `update ${s}.webhook_outbox
     set next_at = coalesce(to_timestamp($4::float8 / 1000), next_at),
         gave_up_at = case when $4::float8 is null then to_timestamp($5::float8 / 1000) end,
         last_status = $6::int,
         last_error = $7::text
     where thread_id = $1::text and run_id = $2::text and attempts = $3::int and delivered_at is null`,
    [failure.threadId, failure.runId, failure.attempt, failure.retryAt, failure.now, failure.httpStatus, failure.error],
  );
  return rowCount === 1;
}
