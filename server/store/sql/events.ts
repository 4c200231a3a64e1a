/** SQL of the event log: the batch append, reads after a cursor (retention's deletes: sql/retention.ts). */
import type { StoredEvent } from "../../../protocol/events.ts";
import type { BatchPlan } from "../batch.ts";
import { toMs, toNum, type Queryable, type Row, type Statement } from "../db.ts";
import { ignoredCancelSql, settlesSql } from "./lifecycle.ts";

export interface AppendedThread {
  threadId: string;
  /** last_seq before this batch: the thread's events got base + 1, base + 2, ... */
  base: number;
  /** commit time of the batch, ms since epoch */
  at: number;
}

/**
 * Writes a whole batch (any number of threads) in one statement:
 * - `locked` takes the thread rows' locks in thread_id order, so that two writers whose batches
 *   share threads cannot deadlock;
 * - `bumped` allocates the sequence numbers (last_seq += n) and sets the status and active run
 *   the batch leaves each thread in (and frees the lease when that status is settled); it
 *   returns nothing for a thread that does not exist, or whose fenced appends lost the lease;
 * - `inserted` is the multi-row INSERT of the events, seq = base + offset;
 * - `upserted` records the runs' lifecycle. A queued run keeps the input it was queued with.
 * - `checkpointed` stores the checkpoint an append carried (a run's end), as of the thread's
 *   last event in the batch: a patch on the thread's newest part, or a full fold that deletes
 *   the parts before it (protocol/checkpoint-patch.ts, migration 0008).
 * Event data travels as text[] and is cast per row: a jsonb[] parameter measured 25% slower
 * (its array literal is parsed, then every element again).
 * Run it inside the flush transaction (Db.batch): the locks are held until its COMMIT.
 *
 * `at` (ms since epoch), given on Citus only: the time the batch stamps (the events' and the
 * checkpoint's created_at, the admitted lease's start, updated_at), in place of the database's
 * now(), which on Citus would be each node's own transaction's (the events' default is the
 * worker's, the returned commit time the coordinator's). Citus refuses a stable function inside
 * CASE or an ON CONFLICT update of a distributed table ("non-IMMUTABLE functions are not allowed
 * in CASE or COALESCE statements"), since it evaluates them on the coordinator before routing.
 * The heartbeat restamps the lease with the database clock a third of a TTL later, so an
 * instance's clock skew moves only the first stretch of a lease. Every table a statement reads
 * or writes names the batch's threads (`= any($1)`), so that Citus prunes each to the batch's shard.
 */
/**
 * The status a batch leaves a thread in is its last status-moving event's, except that a cancel
 * arriving after the run already ended changes nothing. Cancel comes from any instance and may
 * cross the run's own end in flight; letting it win would leave a thread CANCELLING with no run
 * to finish it: the "Cancelling..." forever this server exists to prevent. `t` is the row as
 * locked (its newest version), so the check sees what the run's executor committed. Both
 * fragments are rendered from protocol/lifecycle.ts (sql/lifecycle.ts).
 */
const ignoredCancel = ignoredCancelSql("c", "t");
const settles = settlesSql("c", "t");

export function appendBatch(s: string, plan: BatchPlan, at?: number): Statement {
  const { threads: t, events: e, runs: r } = plan;
  const now = at === undefined ? "now()" : "to_timestamp($26::float8 / 1000)";
  // timestamptz + interval is stable too (time zones): the sum is taken in ms, then converted.
  const admitExpiry = at === undefined ? "now() + c.admit_ttl * interval '1 millisecond'" : "to_timestamp(($26::float8 + c.admit_ttl) / 1000)";
  return {
    text: `with locked as (
       select thread_id
       from ${s}.threads
       where thread_id = any($1::text[])
       order by thread_id
       for update
     ),
     bumped as (
       update ${s}.threads t
       set last_seq = t.last_seq + c.n,
           status = case when c.status is null or ${ignoredCancel} then t.status else c.status end,
           active_run_id = case when c.touch_active and not ${ignoredCancel} then c.active_run_id else t.active_run_id end,
           -- A batch that settles the thread ends the run its lease guarded: the lease is freed in
           -- the same commit, so no separate release can race the next run's admission. Otherwise
           -- an admission takes the lease in the commit that writes its run's first events.
           lease_owner = case when ${settles} then null
                              when c.admit_lease_owner is not null then c.admit_lease_owner else t.lease_owner end,
           lease_expires_at = case when ${settles} then null
                                   when c.admit_lease_owner is not null then ${admitExpiry}
                                   else t.lease_expires_at end,
           -- Only activity the list orders by moves it (BatchPlan.touched): a flush of tokens
           -- changes no indexed column, so the row is rewritten in place (HOT). Rejected: a
           -- separate listed_at column with the indexes moved onto it, which instances of the
           -- release before (rolling upgrade) would never set.
           updated_at = case when c.touched then ${now} else t.updated_at end
       from locked l
       join unnest($1::text[], $2::int[], $3::text[], $4::boolean[], $5::text[], $15::boolean[], $16::text[],
                   $17::text[], $18::text[], $19::float8[], $20::bigint[], $21::text[], $23::boolean[])
         as c(thread_id, n, status, touch_active, active_run_id, cancel_guard, lease_owner,
              admit_agent, admit_lease_owner, admit_ttl, admit_seq, admit_tenant, touched) using (thread_id)
       where t.thread_id = l.thread_id and t.thread_id = any($1::text[])
         -- The fence: a run's events commit only while its executor is still the lease owner.
         -- An instance that froze past its lease and woke after a takeover writes nothing. An
         -- expired lease nobody claimed yet still fences for its owner: refusing it would abort
         -- a run over one slow heartbeat, and a claim is what hands the run to someone else.
         and (c.lease_owner is null or t.lease_owner = c.lease_owner)
         -- The admission (batch.ts Admission): refused, writing nothing, when the thread moved on
         -- since the run's batch was built, belongs to another agent or tenant, or is leased.
         and (c.admit_lease_owner is null
              or (t.last_seq = c.admit_seq and t.agent_id = c.admit_agent and t.tenant_id = c.admit_tenant
                  and (t.lease_owner is null or t.lease_expires_at <= now())))
       returning t.thread_id, t.last_seq - c.n as base, t.last_seq as last
     ),
     inserted as (
       insert into ${s}.workflow_events (thread_id, seq, run_id, type, data, created_at)
       select e.thread_id, b.base + e.off, e.run_id, e.type, e.data::jsonb, ${now}
       from unnest($6::text[], $7::int[], $8::text[], $9::text[], $10::text[])
         as e(thread_id, off, run_id, type, data)
       join bumped b using (thread_id)
     ),
     upserted as (
       insert into ${s}.runs as r (run_id, thread_id, status, input)
       select u.run_id, u.thread_id, u.status, u.input::jsonb
       from unnest($11::text[], $12::text[], $13::text[], $14::text[]) as u(run_id, thread_id, status, input)
       where u.thread_id in (select thread_id from bumped)
       on conflict (thread_id, run_id) do update
       set status = excluded.status,
           input = coalesce(r.input, excluded.input),
           updated_at = ${now}
     ),
     checkpointed as (
       insert into ${s}.checkpoint_parts (thread_id, seq, base_seq, part, bytes, created_at)
       select c.thread_id, b.last, c.base_seq, c.part::jsonb, c.bytes, ${now}
       from unnest($1::text[], $22::text[], $24::bigint[], $25::int[]) as c(thread_id, part, base_seq, bytes)
       join bumped b using (thread_id)
       where c.part is not null
         -- A patch applies to the part it was diffed against: written only while that part is
         -- still the thread's newest, else the checkpoint stays the older one (still correct).
         and (c.base_seq is null
              or c.base_seq = (select max(p.seq) from ${s}.checkpoint_parts p where p.thread_id = c.thread_id and p.thread_id = any($1::text[])))
       on conflict (thread_id, seq) do nothing
     ),
     -- A full fold stands for everything before it: the parts it supersedes go, and so does the
     -- row of the release before parts (an instance of it then folds the thread from its log).
     superseded_parts as (
       delete from ${s}.checkpoint_parts p
       using unnest($1::text[], $22::text[], $24::bigint[]) as c(thread_id, part, base_seq)
       join bumped b using (thread_id)
       where p.thread_id = any($1::text[]) and p.thread_id = c.thread_id and c.part is not null and c.base_seq is null and p.seq < b.last
     ),
     superseded_row as (
       delete from ${s}.checkpoints k
       using unnest($1::text[], $22::text[], $24::bigint[]) as c(thread_id, part, base_seq)
       join bumped b using (thread_id)
       where k.thread_id = any($1::text[]) and k.thread_id = c.thread_id and c.part is not null and c.base_seq is null and k.seq < b.last
     )
     select thread_id, base, ${now} as at from bumped`,
    name: at === undefined ? "append_batch" : "append_batch_at",
    params: [
      t.ids, t.counts, t.statuses, t.touchActive, t.activeRunIds,
      e.threadIds, e.offsets, e.runIds, e.types, e.data,
      r.ids, r.threadIds, r.statuses, r.inputs,
      t.cancelGuards, t.leaseOwners,
      t.admitAgents, t.admitLeaseOwners, t.admitTtls, t.admitSeqs, t.admitTenants,
      t.checkpoints, t.touched, t.checkpointBases, t.checkpointBytes,
      ...(at === undefined ? [] : [at]),
    ],
  };
}

/** The threads appendBatch wrote, from its rows (a thread it refused is absent). */
export function appendedThreads(rows: readonly Row[]): AppendedThread[] {
  return rows.map((row) => ({ threadId: row.thread_id as string, base: toNum(row.base), at: toMs(row.at) }));
}

/**
 * Creates the threads that admissions of new threads (expected last_seq 0) write to, in the flush
 * transaction before appendBatch (null when there are none), so that the thread row, its run and its first events commit
 * together or not at all. A thread that exists already is left as it is: appendBatch's admission
 * check then decides.
 */
export function insertAdmittedThreads(s: string, plan: BatchPlan): Statement | null {
  const { ids, admitAgents, admitSeqs, admitTenants } = plan.threads;
  const fresh = ids.flatMap((_id, i) => (admitSeqs[i] === 0 && admitAgents[i] !== null ? [i] : []));
  if (fresh.length === 0) return null;
  return {
    text: `insert into ${s}.threads (thread_id, agent_id, tenant_id)
     select thread_id, agent_id, tenant_id
     from unnest($1::text[], $2::text[], $3::text[]) as n(thread_id, agent_id, tenant_id)
     on conflict (thread_id) do nothing`,
    params: [fresh.map((i) => ids[i]!), fresh.map((i) => admitAgents[i]!), fresh.map((i) => admitTenants[i]!)],
  };
}

interface EventRow {
  thread_id: string;
  seq: unknown;
  run_id: string | null;
  type: string;
  data: unknown;
  created_at: unknown;
}

function eventFromRow(row: EventRow): StoredEvent {
  // Rows are trusted: only the writer puts them there, from validated events. Parsing each one
  // with zod again would cost more than the read itself on a replay of thousands of deltas.
  return {
    type: row.type,
    data: row.data,
    threadId: row.thread_id,
    seq: toNum(row.seq),
    runId: row.run_id,
    at: toMs(row.created_at),
  } as StoredEvent;
}

/**
 * Events of a thread with after < seq < before, in order; all of them when limit is null. `before`
 * is always an index bound (a catch-up reads up to a compacted stretch): a nullable one would be a
 * filter, and a page that stops short of the limit would scan the rest of the thread for nothing.
 */
export async function readEvents(
  db: Queryable,
  s: string,
  threadId: string,
  after: number,
  limit: number | null,
  before: number = Number.MAX_SAFE_INTEGER,
): Promise<StoredEvent[]> {
  const { rows } = await db.query<EventRow>(
    `select thread_id, seq, run_id, type, data, created_at
     from ${s}.workflow_events
     where thread_id = $1::text and seq > $2::bigint and seq < $4::bigint
     order by seq
     limit $3::int`,
    [threadId, after, limit, before],
    "read_events",
  );
  return rows.map(eventFromRow);
}

/**
 * A page of the log bounded twice: at most `limit` rows, and the rows that fit in `maxBytes` of
 * stored size (pg_column_size: the datum as stored, compressed or not; read from a toasted
 * value's pointer, so the rows left out are never fetched or decompressed), the first row always,
 * whatever its size. `more`: the page stopped at a bound, not at the end of the range. Why both:
 * a page of 500 events of ~1 MB each was one statement of 500 MB, which outlived the read's wait
 * (DB_CONNECT_TIMEOUT_MS) on a healthy database and was answered as "the database is
 * unavailable" (issue 30). Rejected: a size column written with each event (a migration and a
 * rewrite of every writer, for a bound this one reaches from the stored size).
 */
export async function readEventsPage(
  db: Queryable,
  s: string,
  threadId: string,
  after: number,
  limit: number,
  maxBytes: number,
  before: number = Number.MAX_SAFE_INTEGER,
): Promise<{ events: StoredEvent[]; more: boolean }> {
  const { rows } = await db.query<EventRow & { fetched: unknown }>(
    `select thread_id, seq, run_id, type, data, created_at, fetched
     from (
       select p.*, sum(pg_column_size(p.data)) over (order by p.seq) as upto, count(*) over () as fetched
       from (
         select thread_id, seq, run_id, type, data, created_at
         from ${s}.workflow_events
         where thread_id = $1::text and seq > $2::bigint and seq < $4::bigint
         order by seq
         limit $3::int
       ) p
     ) w
     where w.upto - pg_column_size(w.data) < $5::bigint
     order by seq`,
    [threadId, after, limit, before, maxBytes],
    "read_events_page",
  );
  const fetched = rows.length === 0 ? 0 : toNum(rows[0]!.fetched);
  return { events: rows.map(eventFromRow), more: fetched === limit || rows.length < fetched };
}

/**
 * How many events of a thread have seq > after, and the last seq among them (`after` when none):
 * a bounded answer to "was anything after this cursor compacted away?" (the log is gapless until
 * retention deletes, so the range is intact exactly when count = last - after). One index range
 * scan on (thread_id, seq); no row leaves the database.
 */
export async function countEventsAfter(
  db: Queryable,
  s: string,
  threadId: string,
  after: number,
): Promise<{ count: number; lastSeq: number }> {
  const { rows } = await db.query<{ n: unknown; last: unknown }>(
    `select count(*)::bigint as n, coalesce(max(seq), $2::bigint) as last
     from ${s}.workflow_events
     where thread_id = $1::text and seq > $2::bigint`,
    [threadId, after],
  );
  return { count: toNum(rows[0]!.n), lastSeq: toNum(rows[0]!.last) };
}
