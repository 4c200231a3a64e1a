/**
 * SQL of thread leases: the instance executing a thread's run holds its lease and heartbeats it.
 * Expiry is computed with the database clock (now()), never the caller's, so that instances
 * whose clocks disagree still agree on who holds what. `lease_owner = $leaseOwner` is the fence.
 */
import type { Queryable } from "../db.ts";
import type { ThreadRow } from "../types.ts";
import { ACTIVE_THREAD_STATUSES_SQL } from "./lifecycle.ts";
import { threadFromRow, type ThreadDbRow } from "./threads.ts";

/**
 * Takes the lease when it is free or expired: never when anyone holds it, this owner included.
 * A run's start takes it before writing run.accepted, so a second start of the same thread, on
 * this instance or another, finds it taken and sees the thread as busy. (The lease is freed in
 * the commit that settles a run, so a follow-up finds it free.) Rejected: letting the holder
 * re-take it, which let two requests of one instance (a double click) both begin a run.
 */
export async function acquireLease(db: Queryable, s: string, threadId: string, leaseOwner: string, ttlMs: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `update ${s}.threads
     set lease_owner = $2::text,
         lease_expires_at = now() + $3::float8 * interval '1 millisecond'
     where thread_id = $1::text
       and (lease_owner is null or lease_expires_at <= now())`,
    [threadId, leaseOwner, ttlMs],
  );
  return rowCount === 1;
}

/**
 * Extends the leases `leaseOwner` still holds among these threads; returns their ids.
 *
 * The rows are locked first, in thread_id order, as the writer's batch locks them
 * (sql/events.ts appendBatch): the heartbeat beats the very threads whose tokens the writer is
 * committing, and a plain `update ... where thread_id = any(...)` locks them in the order its
 * scan meets them, so that each could hold a row the other waits for (a deadlock, or a heartbeat
 * stuck until its lock timeout while every one of those streams waited). The owner is checked
 * again on the locked row (its newest version), so a lease taken over meanwhile is not renewed.
 */
export async function heartbeatLeases(
  db: Queryable,
  s: string,
  leaseOwner: string,
  threadIds: readonly string[],
  ttlMs: number,
): Promise<string[]> {
  const { rows } = await db.query<{ thread_id: string }>(
    `with locked as (
       select thread_id
       from ${s}.threads
       where thread_id = any($2::text[]) and lease_owner = $1::text
       order by thread_id
       for update
     )
     update ${s}.threads t
     set lease_expires_at = now() + $3::float8 * interval '1 millisecond'
     from locked l
     where t.thread_id = l.thread_id and t.thread_id = any($2::text[])
     returning t.thread_id`,
    [leaseOwner, threadIds, ttlMs],
    "heartbeat",
  );
  return rows.map((r) => r.thread_id);
}

export async function releaseLease(db: Queryable, s: string, threadId: string, leaseOwner: string): Promise<void> {
  await db.query(
    `update ${s}.threads
     set lease_owner = null, lease_expires_at = null
     where thread_id = $1::text and lease_owner = $2::text`,
    [threadId, leaseOwner],
  );
}

/** The threads whose lease `leaseOwner` holds: what an instance's graceful close gives back (releaseLeases). */
export async function selectLeasedThreads(db: Queryable, s: string, leaseOwner: string): Promise<string[]> {
  const { rows } = await db.query<{ thread_id: string }>(`select thread_id from ${s}.threads where lease_owner = $1::text`, [leaseOwner]);
  return rows.map((r) => r.thread_id);
}

/**
 * Gives back the leases `leaseOwner` holds among these threads, made claimable at once (no expiry
 * to wait for): the last step of an instance's graceful close, so that no thread stays fenced to
 * an instance that is gone, whatever its runs were doing when they were stopped. Returns the
 * threads released. The threads come from selectLeasedThreads, grouped by shard (shards.ts):
 * rejected, one `update ... where lease_owner = $1` over every thread, which on Citus locks rows
 * on every shard in one distributed statement (and is refused with the lock order below).
 */
export async function releaseLeases(db: Queryable, s: string, leaseOwner: string, threadIds: readonly string[]): Promise<string[]> {
  const { rows } = await db.query<{ thread_id: string }>(
    // In thread_id order, as heartbeatLeases and for the same reason: the writer may still be
    // flushing the last events of the runs that were stopped.
    `with locked as (
       select thread_id
       from ${s}.threads
       where thread_id = any($2::text[]) and lease_owner = $1::text
       order by thread_id
       for update
     )
     update ${s}.threads t
     set lease_owner = null, lease_expires_at = null
     from locked l
     where t.thread_id = l.thread_id and t.thread_id = any($2::text[])
     returning t.thread_id`,
    [leaseOwner, threadIds],
  );
  return rows.map((r) => r.thread_id);
}

/**
 * Active threads (protocol/lifecycle.ts ACTIVE_STATUSES) with a run and no live lease: the work of
 * an instance that died, as candidates, read without a lock (on Citus it spans every shard, where
 * a lock is not pushed down: "could not run distributed query with FOR UPDATE/SHARE commands").
 * Each is then claimed alone (claimExpiredLease), which checks it all again under its row lock.
 * `executingHere`: see claimExpiredLease.
 */
export async function selectExpiredLeases(db: Queryable, s: string, limit: number, executingHere: readonly string[] = []): Promise<string[]> {
  const { rows } = await db.query<{ thread_id: string }>(
    `select thread_id
     from ${s}.threads
     where status in ${ACTIVE_THREAD_STATUSES_SQL}
       and active_run_id is not null
       and (lease_expires_at is null or lease_expires_at <= now())
       and not (thread_id = any($2::text[]))
     order by lease_expires_at nulls first, thread_id
     limit $1::int`,
    [limit, executingHere],
  );
  return rows.map((r) => r.thread_id);
}

/**
 * Claims one thread found by selectExpiredLeases, if it still has a run and no live lease; null
 * otherwise. SKIP LOCKED lets concurrent claimers pass a thread another holds (one of them, or
 * the writer committing its events: a live run), and the row lock re-checks the condition on the
 * newest row version, so a thread is never claimed twice. A thread without an active run
 * (created, no run accepted yet) has nothing to recover and is left alone.
 *
 * `executingHere` are the threads the claimer is itself executing: their lease may have expired
 * only because this process was too busy to beat in time, and its next beat renews it (it still
 * holds it) or stops the run (another instance took it). Claiming one would start a second
 * execution of the same run in this process, both writing under the same owner: the fence
 * (`lease_owner`) cannot tell them apart. The exclusion is in the claim's own statement, so no
 * run can start or stop between the check and the claim. Rejected: checking the claimed rows
 * against the executor afterwards, which leaves the lease re-stamped and a recovery half begun.
 * One statement per thread, a router statement on its shard on Citus. Rejected: one claim of
 * every expired thread with `for update skip locked limit n`, which Citus cannot run across shards.
 */
export async function claimExpiredLease(
  db: Queryable,
  s: string,
  threadId: string,
  leaseOwner: string,
  ttlMs: number,
  executingHere: readonly string[] = [],
): Promise<ThreadRow | null> {
  const { rows } = await db.query<ThreadDbRow>(
    `with candidate as (
       select thread_id
       from ${s}.threads
       where thread_id = $3::text
         and status in ${ACTIVE_THREAD_STATUSES_SQL}
         and active_run_id is not null
         and (lease_expires_at is null or lease_expires_at <= now())
         and not ($3::text = any($4::text[]))
       for update skip locked
     )
     update ${s}.threads t
     set lease_owner = $1::text,
         lease_expires_at = now() + $2::float8 * interval '1 millisecond'
     from candidate c
     where t.thread_id = c.thread_id and t.thread_id = $3::text
     returning t.*`,
    [leaseOwner, ttlMs, threadId, executingHere],
  );
  return rows[0] ? threadFromRow(rows[0]) : null;
}
