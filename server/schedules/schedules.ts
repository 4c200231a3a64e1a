/**
 * Schedules as the routes and the library use them (docs/schedules.md): create (checked whole,
 * schedule-input.ts), list, get, delete, pause, resume, and the runs a schedule started, all
 * scoped to one tenant. The firing is the scheduler's (scheduler.ts).
 */
import { randomUUID } from "node:crypto";
import { wireRunStatus, type WireRunStatus } from "../../protocol/run-wire-status.ts";
import type { AgentRegistry } from "../agents/define.ts";
import { InvalidRequestError, NotFoundError } from "../errors.ts";
import type { ScheduleRow } from "../store/schedule-store.ts";
import type { EventStore } from "../store/types.ts";
import { parseScheduleInput } from "./schedule-input.ts";
import { nextTickAfter } from "./timing.ts";

/** Schedules one tenant may list at once (GET /schedules answers at most this many, oldest first). */
export const SCHEDULES_LIST_MAX = 500;
/** Ticks a schedule's runs page shows, newest first. */
export const SCHEDULE_RUNS_MAX = 100;

export interface ScheduleRun {
  threadId: string;
  runId: string;
  dueAt: number;
  startedAt: number | null;
  /** the run's status now; absent until it started, or when it could not start */
  status?: WireRunStatus;
  error?: { code: string; message: string };
}

export class Schedules {
  constructor(private readonly deps: { store: EventStore; agents: AgentRegistry; minIntervalMs: number }) {}

  /** Creates a schedule from a POST body; throws InvalidRequestError (400) or NotFoundError (404 agent) with the reasons. */
  async create(tenantId: string, body: unknown): Promise<ScheduleRow> {
    const parsed = parseScheduleInput(body, this.deps.minIntervalMs);
    if (!parsed.ok) {
      throw new InvalidRequestError("INVALID_SCHEDULE", "The body is not a schedule this server can keep; fix the fields listed in `issues`.", parsed.issues);
    }
    const s = parsed.value;
    if (!this.deps.agents.get(s.agentId)) {
      throw new NotFoundError("AGENT_NOT_FOUND", (base) => `There is no agent "${s.agentId}". GET ${base}/agents lists the agents this server hosts.`, {
        agents: this.deps.agents.list().map((a) => a.id),
      });
    }
    const now = Date.now();
    return this.deps.store.schedules.create({ ...s, tenantId, scheduleId: randomUUID(), nextAt: nextTickAfter(s, now), createdAt: now });
  }

  list(tenantId: string): Promise<ScheduleRow[]> {
    return this.deps.store.schedules.list(tenantId, SCHEDULES_LIST_MAX);
  }

  async get(tenantId: string, scheduleId: string): Promise<ScheduleRow> {
    return (await this.deps.store.schedules.get(tenantId, scheduleId)) ?? notFound(scheduleId);
  }

  async delete(tenantId: string, scheduleId: string): Promise<void> {
    if (!(await this.deps.store.schedules.delete(tenantId, scheduleId))) notFound(scheduleId);
  }

  /** Pauses (no tick fires) or resumes (the next tick is the first after now: the paused time fires nothing). */
  async setPaused(tenantId: string, scheduleId: string, paused: boolean): Promise<ScheduleRow> {
    const schedule = await this.get(tenantId, scheduleId);
    const now = Date.now();
    const nextAt = paused ? schedule.nextAt : nextTickAfter(schedule, now);
    return (await this.deps.store.schedules.setPaused(tenantId, scheduleId, paused, nextAt, now)) ?? notFound(scheduleId);
  }

  /** The runs the schedule started, newest first, each with its status now. */
  async runs(tenantId: string, scheduleId: string): Promise<ScheduleRun[]> {
    await this.get(tenantId, scheduleId);
    const ticks = await this.deps.store.schedules.ticks(tenantId, scheduleId, SCHEDULE_RUNS_MAX);
    return Promise.all(
      ticks.map(async (t): Promise<ScheduleRun> => {
        const run = t.startedAt !== null && t.error === null ? await this.deps.store.runStatus(t.threadId, t.runId) : null;
        return {
          threadId: t.threadId,
          runId: t.runId,
          dueAt: t.dueAt,
          startedAt: t.startedAt,
          ...(run && { status: wireRunStatus(run.status, run.suspendReason ?? undefined) }),
          ...(t.error && { error: t.error }),
        };
      }),
    );
  }
}

function notFound(scheduleId: string): never {
  throw new NotFoundError("SCHEDULE_NOT_FOUND", `There is no schedule "${scheduleId}".`);
}
