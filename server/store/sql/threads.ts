/**
 * SQL of the threads table: create, get, delete (the list is thread-listing.ts). Reads and deletes
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

/**
 * Deletes the thread, its events and runs going with it (on delete cascade), unless a run is
 * active on it or queued behind it. One statement: the row lock it takes orders it against a
 * run's admission (which checks the row in its own commit), so neither can slip between the
 * other's check and write. With a tenant, another tenant's thread is "not_found". Each table
 * names the thread itself (`= $1`), not only through the join: Citus routes a statement to one
 * shard only when every table in it is pruned to that shard.
 */
export async function deleteThread(db: Queryable, s: string, threadId: string, tenantId: string | null): Promise<DeleteOutcome> {
  const { rows } = await db.query<{ deleted: boolean }>(
    `with target as (
       select thread_id, status in ${ACTIVE_THREAD_STATUSES_SQL} and active_run_id is not null
              or exists (select 1 from ${s}.runs r where r.thread_id = $1::text and r.status = 'queued') as busy
       from ${s}.threads t
       where thread_id = $1::text and ($2::text is null or tenant_id = $2::text)
       for update
     ),
     deleted as (
       delete from ${s}.threads d
       using target
       where d.thread_id = $1::text and d.thread_id = target.thread_id and not target.busy
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
