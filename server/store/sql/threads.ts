/**
 * SQL of the threads table: create, get, list (keyset-paginated), delete. Reads and deletes
 * take a tenant: a string scopes the statement to that tenant's threads (`tenant_id = $n`, so a
 * thread of another tenant is simply not there); null is the engine's own unscoped access.
 */
import type { ThreadStatus } from "../../../protocol/status.ts";
import { toMs, toMsOrNull, toNum, type Queryable } from "../db.ts";
import type { DeleteOutcome, ThreadRow } from "../types.ts";
import { ACTIVE_THREAD_STATUSES_SQL } from "./lifecycle.ts";

export interface ThreadDbRow {
  thread_id: string;
  agent_id: string;
  tenant_id: string;
  status: string;
  last_seq: unknown;
  active_run_id: string | null;
  lease_owner: string | null;
  lease_expires_at: unknown;
  created_at: unknown;
  updated_at: unknown;
}

export const THREAD_COLUMNS = `thread_id, agent_id, tenant_id, status, last_seq, active_run_id, lease_owner,
  lease_expires_at, created_at, updated_at`;

export function threadFromRow(row: ThreadDbRow): ThreadRow {
  return {
    threadId: row.thread_id,
    agentId: row.agent_id,
    tenantId: row.tenant_id,
    status: row.status as ThreadStatus,
    lastSeq: toNum(row.last_seq),
    activeRunId: row.active_run_id,
    leaseOwner: row.lease_owner,
    leaseExpiresAt: toMsOrNull(row.lease_expires_at),
    createdAt: toMs(row.created_at),
    updatedAt: toMs(row.updated_at),
  };
}

/** Creates the thread (PENDING, no events yet) for a tenant; null when it already exists. */
export async function insertThread(
  db: Queryable,
  s: string,
  threadId: string,
  agentId: string,
  tenantId: string,
): Promise<ThreadRow | null> {
  const { rows } = await db.query<ThreadDbRow>(
    `insert into ${s}.threads (thread_id, agent_id, tenant_id)
     values ($1::text, $2::text, $3::text)
     on conflict (thread_id) do nothing
     returning ${THREAD_COLUMNS}`,
    [threadId, agentId, tenantId],
  );
  return rows[0] ? threadFromRow(rows[0]) : null;
}

export async function selectThread(db: Queryable, s: string, threadId: string, tenantId: string | null): Promise<ThreadRow | null> {
  const { rows } = await db.query<ThreadDbRow>(
    `select ${THREAD_COLUMNS} from ${s}.threads
     where thread_id = $1::text and ($2::text is null or tenant_id = $2::text)`,
    [threadId, tenantId],
  );
  return rows[0] ? threadFromRow(rows[0]) : null;
}

/** A position in the newest-updated-first order: updated_at in µs since epoch, then thread id. */
export interface ThreadKey {
  updatedAtUs: string;
  threadId: string;
}

export interface ThreadListQuery {
  /** null: every tenant's threads (no index serves that order; operators and tests only) */
  tenantId: string | null;
  agentId: string | null;
  status: ThreadStatus | null;
  before: ThreadKey | null;
  limit: number;
}

/**
 * One page, newest-updated first. The key keeps updated_at to the microsecond (a JS Date would
 * round it to the millisecond and the next page could skip or repeat a thread).
 */
export async function selectThreadPage(
  db: Queryable,
  s: string,
  q: ThreadListQuery,
): Promise<{ threads: ThreadRow[]; keys: ThreadKey[] }> {
  const { rows } = await db.query<ThreadDbRow & { updated_at_us: string }>(
    `select ${THREAD_COLUMNS},
            ((extract(epoch from updated_at) * 1000000)::bigint)::text as updated_at_us
     from ${s}.threads
     where ($6::text is null or tenant_id = $6::text)
       and ($1::text is null or agent_id = $1::text)
       and ($2::text is null or status = $2::text)
       and ($3::bigint is null
            or (updated_at, thread_id) < (timestamptz 'epoch' + $3::bigint * interval '1 microsecond', $4::text))
     order by updated_at desc, thread_id desc
     limit $5::int`,
    [q.agentId, q.status, q.before?.updatedAtUs ?? null, q.before?.threadId ?? null, q.limit, q.tenantId],
  );
  return {
    threads: rows.map(threadFromRow),
    keys: rows.map((r) => ({ updatedAtUs: r.updated_at_us, threadId: r.thread_id })),
  };
}

/**
 * Deletes the thread, its events and runs going with it (on delete cascade), unless a run is
 * active on it or queued behind it. One statement: the row lock it takes orders it against a
 * run's admission (which checks the row in its own commit), so neither can slip between the
 * other's check and write. With a tenant, another tenant's thread is "not_found".
 */
export async function deleteThread(db: Queryable, s: string, threadId: string, tenantId: string | null): Promise<DeleteOutcome> {
  const { rows } = await db.query<{ deleted: boolean }>(
    `with target as (
       select thread_id, status in ${ACTIVE_THREAD_STATUSES_SQL} and active_run_id is not null
              or exists (select 1 from ${s}.runs r where r.thread_id = t.thread_id and r.status = 'queued') as busy
       from ${s}.threads t
       where thread_id = $1::text and ($2::text is null or tenant_id = $2::text)
       for update
     ),
     deleted as (
       delete from ${s}.threads d
       using target
       where d.thread_id = target.thread_id and not target.busy
       returning d.thread_id
     )
     select exists (select 1 from deleted) as deleted from target`,
    [threadId, tenantId],
  );
  if (rows.length === 0) return "not_found";
  return rows[0]!.deleted ? "deleted" : "busy";
}

/** last_seq of each of these threads that exists: what the polling doorbell compares (poll-doorbell.ts). */
export async function selectLastSeqs(db: Queryable, s: string, threadIds: readonly string[]): Promise<Map<string, number>> {
  const { rows } = await db.query<{ thread_id: string; last_seq: unknown }>(
    `select thread_id, last_seq from ${s}.threads where thread_id = any($1::text[])`,
    [threadIds],
  );
  return new Map(rows.map((r) => [r.thread_id, toNum(r.last_seq)]));
}
