/**
 * When a schedule ticks: a cron expression in a time zone (croner: five or six fields, IANA time
 * zones through Intl, daylight-saving gaps and repeats handled by the library), or a fixed
 * interval from the previous tick. Rejected: a cron parser of our own, a field of bugs (DST, day
 * of month or of week, step ranges) that a well-kept library with no dependencies has closed.
 */
import { Cron } from "croner";
import type { MissedPolicy } from "../store/schedule-store.ts";

export interface Timing {
  cron: string | null;
  timezone: string | null;
  everyMs: number | null;
}

/** Why the timing cannot be used, or null. */
export function timingProblem(t: Timing): { path: string; message: string } | null {
  if (t.cron === null) return null;
  try {
    new Cron(t.cron, { paused: true, ...(t.timezone !== null && { timezone: t.timezone }) }).nextRun();
    return null;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return /timezone/i.test(message) && t.timezone !== null
      ? { path: "timezone", message: `"${t.timezone}" is not an IANA time zone (e.g. Europe/Paris, America/New_York, UTC)` }
      : { path: "cron", message: `not a cron expression this server reads (five fields: minute hour day-of-month month day-of-week; or six with seconds first): ${message}` };
  }
}

/** The first tick strictly after `after` (ms). */
export function nextTickAfter(t: Timing, after: number): number {
  if (t.everyMs !== null) return after + t.everyMs;
  const next = new Cron(t.cron!, { paused: true, ...(t.timezone !== null && { timezone: t.timezone }) }).nextRun(new Date(after));
  // A valid expression that never ticks again (a date in the past): it waits forever, harmlessly.
  return next ? next.getTime() : Number.MAX_SAFE_INTEGER;
}

/**
 * How late a tick may be and still count as late rather than missed. A bound to tell a fleet that
 * was down from one that was slow: a process given a tenth of a core fires seconds late, and each
 * of its ticks still fires, in order, as it catches up. Rejected: "the next tick is due too"
 * alone, which on a busy machine merged the ticks of a 2-second schedule.
 */
export const MISSED_AFTER_MS = 10_000;

/**
 * What to do with the tick due at `dueAt`, found at `now`: fire it or not, and where the next one
 * is. A tick is missed when the one after it is due too and it is more than MISSED_AFTER_MS late
 * (every instance was down): it fires once ("once", the default), or not at all ("skip"); either
 * way the ticks missed in between are not fired, and the next is the first after `now`. An
 * interval keeps its phase: the next tick is the previous one plus whole intervals.
 */
export function planTick(t: Timing, missed: MissedPolicy, dueAt: number, now: number): { fire: boolean; nextAt: number } {
  const following = nextTickAfter(t, dueAt);
  if (following > now || now - dueAt <= MISSED_AFTER_MS) return { fire: true, nextAt: following };
  const nextAt = t.everyMs !== null ? dueAt + t.everyMs * (Math.floor((now - dueAt) / t.everyMs) + 1) : nextTickAfter(t, now);
  return { fire: missed === "once", nextAt };
}
