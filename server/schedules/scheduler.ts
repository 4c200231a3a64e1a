/**
 * The scheduler, one per instance (docs/schedules.md). Every SCHEDULE_POLL_MS it reads the
 * schedules due before the next poll and sets a timer for each at its tick, so a tick fires on
 * time rather than up to a poll late. At the tick it claims it in the database
 * (sql/schedules.ts claimScheduleTick): of all the instances that set a timer for it, one wins,
 * and only that one starts the run. The run's ids are the tick's, so a start that is tried again
 * (its claimer died between the claim and the start, and the sweep of unstarted ticks took it
 * over) is refused by the admission (RUN_ID_REUSED) if it had in fact happened: each tick starts
 * one run. Rejected: a timer per schedule per instance that fires on its own, which starts a run
 * per instance; and an advisory lock, which needs a session a transaction pooler does not keep.
 */
import type { Logger } from "pino";
import type { AgentRegistry } from "../agents/define.ts";
import type { Engine } from "../engine/engine.ts";
import { RunIdReusedError } from "../engine/errors.ts";
import { describeError } from "../http/errors.ts";
import { parseRunRequest } from "../http/run-input.ts";
import { admitRun } from "../http/run-stream.ts";
import type { Metrics } from "../metrics.ts";
import type { ScheduleRow, TickRow } from "../store/schedule-store.ts";
import type { EventStore } from "../store/types.ts";
import type { Workspaces } from "../workspace/workspaces.ts";
import { planTick } from "./timing.ts";

/**
 * A tick claimed this long ago whose run has not started was left by an instance that died or
 * lost the database between the claim and the admission (which takes milliseconds): any
 * instance starts it then. Long enough that a claimer given a tenth of a core is not raced.
 */
export const UNSTARTED_TICK_MS = 30_000;
/** Schedules read per poll: the ticks of more than this many within one poll wait for the next. */
export const SCHEDULES_PER_POLL = 200;

export interface SchedulerDeps {
  store: EventStore;
  engine: Engine;
  agents: AgentRegistry;
  logger: Logger;
  metrics: Metrics;
  workspaces?: Workspaces;
  pollMs: number;
}

/** The ids a tick's run gets: the tick's own, so that starting it twice is refused. */
export function tickRun(schedule: Pick<ScheduleRow, "scheduleId" | "threadId">, dueAt: number): { threadId: string; runId: string } {
  const id = `schedule-${schedule.scheduleId}-${dueAt}`;
  return { threadId: schedule.threadId ?? id, runId: id };
}

export class Scheduler {
  readonly #deps: SchedulerDeps;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #inFlight = new Set<Promise<void>>();
  #poller: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(deps: SchedulerDeps) {
    this.#deps = deps;
  }

  start(): void {
    this.#loop();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#poller);
    for (const t of this.#timers.values()) clearTimeout(t);
    this.#timers.clear();
    await Promise.allSettled([...this.#inFlight]);
  }

  #loop(): void {
    if (this.#closed) return;
    this.#track(
      this.#poll()
        .catch((err: unknown) => this.#deps.logger.warn({ err }, "schedule poll failed; the next poll tries again"))
        .finally(() => {
          if (!this.#closed) this.#poller = setTimeout(() => this.#loop(), this.#deps.pollMs);
        }),
    );
  }

  #track(p: Promise<void>): void {
    this.#inFlight.add(p);
    void p.finally(() => this.#inFlight.delete(p));
  }

  async #poll(): Promise<void> {
    const { store, pollMs } = this.#deps;
    const now = Date.now();
    for (const schedule of await store.schedules.due(now + pollMs, SCHEDULES_PER_POLL)) {
      const key = `${schedule.tenantId}\u0000${schedule.scheduleId}\u0000${schedule.nextAt}`;
      if (this.#timers.has(key)) continue;
      this.#timers.set(
        key,
        setTimeout(() => {
          this.#timers.delete(key);
          if (!this.#closed) this.#track(this.#fire(schedule));
        }, Math.max(0, schedule.nextAt - Date.now())),
      );
    }
    for (const tick of await store.schedules.unstarted(now - UNSTARTED_TICK_MS, SCHEDULES_PER_POLL)) {
      if (this.#closed) return;
      if (await store.schedules.reclaim(tick, Date.now())) await this.#start(tick, await store.schedules.get(tick.tenantId, tick.scheduleId));
    }
  }

  async #fire(schedule: ScheduleRow): Promise<void> {
    const { store, logger } = this.#deps;
    const now = Date.now();
    const plan = planTick(schedule, schedule.missed, schedule.nextAt, now);
    const run = plan.fire ? tickRun(schedule, schedule.nextAt) : null;
    try {
      const claimed = await store.schedules.claim({ tenantId: schedule.tenantId, scheduleId: schedule.scheduleId, dueAt: schedule.nextAt, nextAt: plan.nextAt, now, run });
      if (!claimed) return; // another instance has this tick
      if (!run) {
        logger.info({ scheduleId: schedule.scheduleId, dueAt: new Date(schedule.nextAt).toISOString() }, "schedule tick missed while no instance ran: skipped (missed: skip)");
        return;
      }
      await this.#start({ tenantId: schedule.tenantId, scheduleId: schedule.scheduleId, dueAt: schedule.nextAt, ...run, claimedAt: now, startedAt: null, error: null }, schedule);
    } catch (err) {
      logger.warn({ err, scheduleId: schedule.scheduleId }, "schedule tick could not be claimed or started; an unstarted tick is taken up again by any instance");
    }
  }

  /** Starts the tick's run and records it; a failure for a reason that will pass (the database, a closing engine) leaves it for the sweep. */
  async #start(tick: TickRow, schedule: ScheduleRow | null): Promise<void> {
    const { store, engine, agents, logger } = this.#deps;
    const log = logger.child({ scheduleId: tick.scheduleId, threadId: tick.threadId, runId: tick.runId });
    const refuse = (code: string, message: string) => store.schedules.started(tick, Date.now(), { code, message });
    if (!schedule) return refuse("SCHEDULE_DELETED", "The schedule was deleted before this tick's run started.");
    const agent = agents.get(schedule.agentId);
    if (!agent) return refuse("AGENT_NOT_FOUND", `There is no agent "${schedule.agentId}" on the instance that fired this tick.`);
    const parsed = parseRunRequest({ messages: [], ...schedule.input, threadId: tick.threadId, runId: tick.runId }, { get: () => undefined });
    if (!parsed.ok) return refuse("INVALID_RUN_INPUT", `The schedule's input is not a valid run input: ${parsed.issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`);
    try {
      await admitRun({ store, engine, logger: log, metrics: this.#deps.metrics, workspaces: this.#deps.workspaces }, agent, parsed, tick.tenantId);
      await store.schedules.started(tick, Date.now(), null);
      log.info("schedule tick started its run");
    } catch (err) {
      // Started already, by an earlier try of this tick whose record was lost.
      if (err instanceof RunIdReusedError) return store.schedules.started(tick, Date.now(), null);
      const known = describeError(err);
      if (!known || known.status >= 500) throw err; // transient: the sweep tries the tick again
      log.warn({ code: known.code }, "schedule tick could not start its run");
      await refuse(known.code, known.message);
    }
  }
}
