/**
 * SQL of schedules (migration 0011, docs/schedules.md). Every statement names one tenant's rows
 * (a router statement on Citus, where both tables are distributed by tenant_id), except the poll
 * and the sweep of unstarted ticks, which read across tenants without a lock and are followed by
 * a claim of each row alone. Times are passed in as ISO strings (`$n::timestamptz`): a tick is
 * claimed by comparing next_at with exactly the value read, which a millisecond-exact round trip
 * keeps equal.
 */
import { toMs, toMsOrNull, toNum, type Queryable } from "../db.ts";

export type MissedPolicy = "once" | "skip";

export interface ScheduleRow {
  tenantId: string;
  scheduleId: string;
  agentId: string;
  /** null: a new thread for every tick */
  threadId: string | null;
  cron: string | null;
  timezone: string | null;
  everyMs: number | null;
  /** the RunAgentInput without threadId and runId */
  input: Record<string, unknown>;
  missed: MissedPolicy;
  paused: boolean;
  nextAt: number;
  createdAt: number;
  updatedAt: number;
}

export type NewSchedule = Omit<ScheduleRow, "paused" | "updatedAt">;

interface DbRow {
  tenant_id: string;
  schedule_id: string;
  agent_id: string;
  thread_id: string | null;
  cron: string | null;
  timezone: string | null;
  every_ms: unknown;
  input: Record<string, unknown>;
  missed: MissedPolicy;
  paused: boolean;
  next_at: unknown;
  created_at: unknown;
  updated_at: unknown;
}

const COLUMNS = "tenant_id, schedule_id, agent_id, thread_id, cron, timezone, every_ms, input, missed, paused, next_at, created_at, updated_at";

function scheduleOf(row: DbRow): ScheduleRow {
  return {
    tenantId: row.tenant_id,
    scheduleId: row.schedule_id,
    agentId: row.agent_id,
    threadId: row.thread_id,
    cron: row.cron,
    timezone: row.timezone,
    everyMs: row.every_ms === null ? null : toNum(row.every_ms),
    input: row.input,
    missed: row.missed,
    paused: row.paused,
    nextAt: toMs(row.next_at),
    createdAt: toMs(row.created_at),
    updatedAt: toMs(row.updated_at),
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

export async function insertSchedule(db: Queryable, s: string, n: NewSchedule): Promise<ScheduleRow> {
  const { rows } = await db.query<DbRow>(
    `insert into ${s}.schedules (tenant_id, schedule_id, agent_id, thread_id, cron, timezone, every_ms, input, missed, next_at, created_at, updated_at)
     values ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::bigint, $8::jsonb, $9::text, $10::timestamptz, $11::timestamptz, $11::timestamptz)
     returning ${COLUMNS}`,
    [n.tenantId, n.scheduleId, n.agentId, n.threadId, n.cron, n.timezone, n.everyMs, JSON.stringify(n.input), n.missed, iso(n.nextAt), iso(n.createdAt)],
  );
  return scheduleOf(rows[0]!);
}

export async function selectSchedule(db: Queryable, s: string, tenantId: string, scheduleId: string): Promise<ScheduleRow | null> {
  const { rows } = await db.query<DbRow>(`select ${COLUMNS} from ${s}.schedules where tenant_id = $1::text and schedule_id = $2::text`, [tenantId, scheduleId]);
  return rows[0] ? scheduleOf(rows[0]) : null;
}

/** A tenant's schedules, oldest first, at most `limit`. */
export async function selectSchedules(db: Queryable, s: string, tenantId: string, limit: number): Promise<ScheduleRow[]> {
  const { rows } = await db.query<DbRow>(
    `select ${COLUMNS} from ${s}.schedules where tenant_id = $1::text order by created_at, schedule_id limit $2::int`,
    [tenantId, limit],
  );
  return rows.map(scheduleOf);
}

/** Deletes a schedule and the record of its ticks (its runs stay, in their threads). */
export async function deleteSchedule(db: Queryable, s: string, tenantId: string, scheduleId: string): Promise<boolean> {
  const { rows } = await db.query<{ deleted: unknown }>(
    `with gone as (
       delete from ${s}.schedules where tenant_id = $1::text and schedule_id = $2::text returning schedule_id
     ), ticks as (
       delete from ${s}.schedule_runs where tenant_id = $1::text and schedule_id in (select schedule_id from gone)
     )
     select count(*)::int as deleted from gone`,
    [tenantId, scheduleId],
  );
  return toNum(rows[0]?.deleted) === 1;
}

/** Pauses, or resumes with its next tick at `nextAt` (a resume fires nothing for the paused time). */
export async function setSchedulePaused(db: Queryable, s: string, tenantId: string, scheduleId: string, paused: boolean, nextAt: number, now: number): Promise<ScheduleRow | null> {
  const { rows } = await db.query<DbRow>(
    `update ${s}.schedules
     set paused = $3::boolean, next_at = $4::timestamptz, updated_at = $5::timestamptz
     where tenant_id = $1::text and schedule_id = $2::text
     returning ${COLUMNS}`,
    [tenantId, scheduleId, paused, iso(nextAt), iso(now)],
  );
  return rows[0] ? scheduleOf(rows[0]) : null;
}

/** Active schedules whose next tick is at or before `until`, soonest first: candidates, read without a lock. */
export async function selectDueSchedules(db: Queryable, s: string, until: number, limit: number): Promise<ScheduleRow[]> {
  const { rows } = await db.query<DbRow>(
    `select ${COLUMNS} from ${s}.schedules
     where not paused and next_at <= $1::timestamptz
     order by next_at
     limit $2::int`,
    [iso(until), limit],
  );
  return rows.map(scheduleOf);
}

export interface TickClaim {
  tenantId: string;
  scheduleId: string;
  /** the tick: next_at as read */
  dueAt: number;
  /** where next_at moves */
  nextAt: number;
  now: number;
  /** the run the tick starts, or null when the tick is skipped (policy "skip") */
  run: { threadId: string; runId: string } | null;
}

/**
 * Claims a tick: moves next_at on from exactly the value read, and records the tick with the run
 * it starts, in one statement. Of any number of instances that read the same tick, one moves it;
 * the others match no row. False when someone else claimed it (or the schedule was paused,
 * changed or deleted since it was read).
 */
export async function claimScheduleTick(db: Queryable, s: string, c: TickClaim): Promise<boolean> {
  const { rows } = await db.query<{ claimed: unknown }>(
    `with claimed as (
       update ${s}.schedules
       set next_at = $4::timestamptz, updated_at = $5::timestamptz
       where tenant_id = $1::text and schedule_id = $2::text and next_at = $3::timestamptz and not paused
       returning tenant_id, schedule_id
     ), ticked as (
       insert into ${s}.schedule_runs (tenant_id, schedule_id, due_at, thread_id, run_id, claimed_at)
       select tenant_id, schedule_id, $3::timestamptz, $6::text, $7::text, $5::timestamptz
       from claimed
       where $6::text is not null
       on conflict do nothing
     )
     select count(*)::int as claimed from claimed`,
    [c.tenantId, c.scheduleId, iso(c.dueAt), iso(c.nextAt), iso(c.now), c.run?.threadId ?? null, c.run?.runId ?? null],
  );
  return toNum(rows[0]?.claimed) === 1;
}

export interface TickRow {
  tenantId: string;
  scheduleId: string;
  dueAt: number;
  threadId: string;
  runId: string;
  claimedAt: number;
  startedAt: number | null;
  error: { code: string; message: string } | null;
}

interface TickDbRow {
  tenant_id: string;
  schedule_id: string;
  due_at: unknown;
  thread_id: string;
  run_id: string;
  claimed_at: unknown;
  started_at: unknown;
  error: { code: string; message: string } | null;
}

const TICK_COLUMNS = "tenant_id, schedule_id, due_at, thread_id, run_id, claimed_at, started_at, error";

function tickOf(row: TickDbRow): TickRow {
  return {
    tenantId: row.tenant_id,
    scheduleId: row.schedule_id,
    dueAt: toMs(row.due_at),
    threadId: row.thread_id,
    runId: row.run_id,
    claimedAt: toMs(row.claimed_at),
    startedAt: toMsOrNull(row.started_at),
    error: row.error,
  };
}

/** The tick's run was started (error null), or could not be (its reason): either way it is done. */
export async function markTickStarted(db: Queryable, s: string, tick: Pick<TickRow, "tenantId" | "scheduleId" | "dueAt">, now: number, error: { code: string; message: string } | null): Promise<void> {
  await db.query(
    `update ${s}.schedule_runs set started_at = $4::timestamptz, error = $5::jsonb
     where tenant_id = $1::text and schedule_id = $2::text and due_at = $3::timestamptz`,
    [tick.tenantId, tick.scheduleId, iso(tick.dueAt), iso(now), error === null ? null : JSON.stringify(error)],
  );
}

/** Ticks claimed before `cutoff` whose run never started (their claimer died): candidates, without a lock. */
export async function selectUnstartedTicks(db: Queryable, s: string, cutoff: number, limit: number): Promise<TickRow[]> {
  const { rows } = await db.query<TickDbRow>(
    `select ${TICK_COLUMNS} from ${s}.schedule_runs
     where started_at is null and claimed_at < $1::timestamptz
     order by claimed_at
     limit $2::int`,
    [iso(cutoff), limit],
  );
  return rows.map(tickOf);
}

/** Takes an unstarted tick over (its claim as read moves to `now`); false when someone else did. */
export async function reclaimTick(db: Queryable, s: string, tick: TickRow, now: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `update ${s}.schedule_runs set claimed_at = $5::timestamptz
     where tenant_id = $1::text and schedule_id = $2::text and due_at = $3::timestamptz
       and started_at is null and claimed_at = $4::timestamptz`,
    [tick.tenantId, tick.scheduleId, iso(tick.dueAt), iso(tick.claimedAt), iso(now)],
  );
  return rowCount === 1;
}

/** A schedule's ticks, newest first, at most `limit`. */
export async function selectScheduleTicks(db: Queryable, s: string, tenantId: string, scheduleId: string, limit: number): Promise<TickRow[]> {
  const { rows } = await db.query<TickDbRow>(
    `select ${TICK_COLUMNS} from ${s}.schedule_runs
     where tenant_id = $1::text and schedule_id = $2::text
     order by due_at desc
     limit $3::int`,
    [tenantId, scheduleId, limit],
  );
  return rows.map(tickOf);
}
