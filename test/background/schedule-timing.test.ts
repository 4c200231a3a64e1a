/** When a schedule ticks (server/schedules/timing.ts): cron in a time zone, intervals, missed ticks by policy. */
import { describe, expect, it } from "vitest";
import { MISSED_AFTER_MS, nextTickAfter, planTick, timingProblem } from "../../server/schedules/timing.ts";

const every = (ms: number) => ({ cron: null, timezone: null, everyMs: ms });
const cron = (expr: string, timezone: string | null = null) => ({ cron: expr, timezone, everyMs: null });

describe("schedule timing", () => {
  it("reads cron expressions in their time zone", () => {
    const at = Date.parse("2026-03-28T12:00:00Z");
    // 09:00 in Paris is 08:00 UTC before the switch to summer time (29 March 2026), 07:00 after.
    expect(new Date(nextTickAfter(cron("0 9 * * *", "Europe/Paris"), at)).toISOString()).toBe("2026-03-29T07:00:00.000Z");
    expect(new Date(nextTickAfter(cron("0 9 * * *", "UTC"), at)).toISOString()).toBe("2026-03-29T09:00:00.000Z");
    expect(new Date(nextTickAfter(cron("*/15 * * * * *"), at)).toISOString()).toBe("2026-03-28T12:00:15.000Z");
  });

  it("refuses what it cannot read, naming the field", () => {
    expect(timingProblem(cron("0 9 * * *", "Europe/Paris"))).toBeNull();
    expect(timingProblem(cron("every day"))?.path).toBe("cron");
    expect(timingProblem(cron("0 9 * * *", "Mars/Olympus"))?.path).toBe("timezone");
  });

  it("fires a tick that is only late, and moves to the one after it: a slow instance catches up tick by tick", () => {
    expect(planTick(every(2_000), "once", 10_000, 10_500)).toEqual({ fire: true, nextAt: 12_000 });
    expect(planTick(every(2_000), "skip", 10_000, 10_500)).toEqual({ fire: true, nextAt: 12_000 });
    // 7.5 s late (under MISSED_AFTER_MS): still late, not missed; the next one follows at once.
    expect(planTick(every(2_000), "skip", 10_000, 17_500)).toEqual({ fire: true, nextAt: 12_000 });
  });

  it("a tick missed while nothing ran fires once (once) or not at all (skip); the ticks in between never fire; an interval keeps its phase", () => {
    // Due at 10 s, found at 27.5 s: every tick up to 26 s was missed too.
    expect(planTick(every(2_000), "once", 10_000, 10_000 + MISSED_AFTER_MS + 7_500)).toEqual({ fire: true, nextAt: 28_000 });
    expect(planTick(every(2_000), "skip", 10_000, 10_000 + MISSED_AFTER_MS + 7_500)).toEqual({ fire: false, nextAt: 28_000 });
    const due = Date.parse("2026-01-01T09:00:00Z");
    const back = Date.parse("2026-01-03T10:00:00Z");
    expect(planTick(cron("0 9 * * *", "UTC"), "once", due, back)).toEqual({ fire: true, nextAt: Date.parse("2026-01-04T09:00:00Z") });
  });
});
