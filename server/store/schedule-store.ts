/**
 * Schedules as the store offers them (EventStore.schedules, sql/schedules.ts). Reads a person
 * waits on retry within the read bound; writes retry transient errors: each is idempotent or
 * fenced (a claim compares the value it read), so a retry of one that did commit changes nothing.
 */
import type { Db } from "./db.ts";
import {
  claimScheduleTick,
  deleteSchedule,
  insertSchedule,
  markTickStarted,
  reclaimTick,
  selectDueSchedules,
  selectSchedule,
  selectScheduleTicks,
  selectSchedules,
  selectUnstartedTicks,
  setSchedulePaused,
  type NewSchedule,
  type ScheduleRow,
  type TickClaim,
  type TickRow,
} from "./sql/schedules.ts";

export type { MissedPolicy, NewSchedule, ScheduleRow, TickClaim, TickRow } from "./sql/schedules.ts";

export interface ScheduleStore {
  create(schedule: NewSchedule): Promise<ScheduleRow>;
  get(tenantId: string, scheduleId: string): Promise<ScheduleRow | null>;
  list(tenantId: string, limit: number): Promise<ScheduleRow[]>;
  delete(tenantId: string, scheduleId: string): Promise<boolean>;
  setPaused(tenantId: string, scheduleId: string, paused: boolean, nextAt: number, now: number): Promise<ScheduleRow | null>;
  due(until: number, limit: number): Promise<ScheduleRow[]>;
  claim(claim: TickClaim): Promise<boolean>;
  started(tick: Pick<TickRow, "tenantId" | "scheduleId" | "dueAt">, now: number, error: { code: string; message: string } | null): Promise<void>;
  unstarted(cutoff: number, limit: number): Promise<TickRow[]>;
  reclaim(tick: TickRow, now: number): Promise<boolean>;
  ticks(tenantId: string, scheduleId: string, limit: number): Promise<TickRow[]>;
}

type Retry = <T>(fn: () => Promise<T>) => Promise<T>;

export function scheduleStore(db: Db, s: string, retry: Retry, readRetry: Retry): ScheduleStore {
  return {
    create: (n) => retry(() => insertSchedule(db, s, n)),
    get: (tenantId, id) => readRetry(() => selectSchedule(db, s, tenantId, id)),
    list: (tenantId, limit) => readRetry(() => selectSchedules(db, s, tenantId, limit)),
    // Not retried: a retry after a delete whose reply was lost would answer "not found".
    delete: (tenantId, id) => deleteSchedule(db, s, tenantId, id),
    setPaused: (tenantId, id, paused, nextAt, now) => retry(() => setSchedulePaused(db, s, tenantId, id, paused, nextAt, now)),
    due: (until, limit) => retry(() => selectDueSchedules(db, s, until, limit)),
    claim: (c) => retry(() => claimScheduleTick(db, s, c)),
    started: (tick, now, error) => retry(() => markTickStarted(db, s, tick, now, error)),
    unstarted: (cutoff, limit) => retry(() => selectUnstartedTicks(db, s, cutoff, limit)),
    reclaim: (tick, now) => retry(() => reclaimTick(db, s, tick, now)),
    ticks: (tenantId, id, limit) => readRetry(() => selectScheduleTicks(db, s, tenantId, id, limit)),
  };
}
