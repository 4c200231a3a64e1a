/**
 * The body of POST <mount>/schedules (docs/schedules.md): `{ agentId, threadId?, cron?,
 * timezone?, everyMs?, input, missed? }`, checked whole before anything is written: exactly one of
 * cron and everyMs, the expression and time zone readable, the interval within its bounds, the
 * thread id an id, and `input` a RunAgentInput without threadId and runId that the run route's
 * checks accept (run-input.ts), so a tick never fails on an input that was taken.
 */
import { z } from "zod";
import type { Issue } from "../errors.ts";
import { zodIssues } from "../http/errors.ts";
import { idProblem } from "../http/ids.ts";
import { parseRunRequest } from "../http/run-input.ts";
import type { MissedPolicy } from "../store/schedule-store.ts";
import { timingProblem, type Timing } from "./timing.ts";

/** The longest interval: a year. Longer is a cron expression's job. */
export const SCHEDULE_MAX_INTERVAL_MS = 366 * 24 * 3_600_000;

export const ScheduleBodySchema = z
  .object({
    agentId: z.string().min(1).max(64),
    threadId: z.string().optional(),
    cron: z.string().trim().min(1).max(200).optional(),
    timezone: z.string().min(1).max(64).optional(),
    everyMs: z.number().int().positive().optional(),
    input: z.record(z.string(), z.unknown()),
    missed: z.enum(["once", "skip"]).default("once"),
  })
  .strict();

export interface ScheduleInput extends Timing {
  agentId: string;
  threadId: string | null;
  input: Record<string, unknown>;
  missed: MissedPolicy;
}

export function parseScheduleInput(body: unknown, minIntervalMs: number): { ok: true; value: ScheduleInput } | { ok: false; issues: Issue[] } {
  const parsed = ScheduleBodySchema.safeParse(body);
  if (!parsed.success) return { ok: false, issues: zodIssues(parsed.error.issues) };
  const b = parsed.data;
  const issues: Issue[] = [];
  if ((b.cron === undefined) === (b.everyMs === undefined)) issues.push({ path: "cron", message: "give exactly one of cron and everyMs" });
  if (b.timezone !== undefined && b.cron === undefined) issues.push({ path: "timezone", message: "only a cron expression has a time zone" });
  if (b.everyMs !== undefined && (b.everyMs < minIntervalMs || b.everyMs > SCHEDULE_MAX_INTERVAL_MS)) {
    issues.push({ path: "everyMs", message: `must be from ${minIntervalMs} (SCHEDULE_MIN_INTERVAL_MS) to ${SCHEDULE_MAX_INTERVAL_MS} ms` });
  }
  const idIssue = b.threadId === undefined ? null : idProblem(b.threadId);
  if (idIssue) issues.push({ path: "threadId", message: idIssue });
  for (const key of ["threadId", "runId"] as const) {
    if (b.input[key] !== undefined) issues.push({ path: `input.${key}`, message: "leave it out: each tick names its thread and run" });
  }
  const timing: Timing = { cron: b.cron ?? null, timezone: b.timezone ?? null, everyMs: b.everyMs ?? null };
  const problem = issues.length === 0 ? timingProblem(timing) : null;
  if (problem) issues.push(problem);
  // The input as a tick will send it, with ids of the shape a tick gives it.
  const run = parseRunRequest({ messages: [], ...b.input, threadId: "schedule-check", runId: "schedule-check" }, { get: () => undefined });
  if (!run.ok) issues.push(...run.issues.map((i) => ({ ...i, path: `input.${i.path}` })));
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: { ...timing, agentId: b.agentId, threadId: b.threadId ?? null, input: b.input, missed: b.missed } };
}
