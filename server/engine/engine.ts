/**
 * The engine: accepts runs, executes them under a lease, and leaves every trace in the log.
 * It never writes to a socket; clients read what it appended through protocol/project.ts.
 *
 * One conversation = one thread = one durable workflow; one AG-UI run = one turn of it. The
 * work is split by job: admission and double texting (admission.ts), execution
 * (run-executor.ts), cancellation (cancellation.ts), recovery (recovery.ts) and the clocks
 * (engine-timers.ts); this class composes them behind the API the routes use.
 */
import { randomUUID } from "node:crypto";
import type { RunAgentInput } from "@ag-ui/core";
import type { Logger } from "pino";
import type { AgentDefinition, AgentRegistry } from "../agents/define.ts";
import type { EventStore, ThreadRow } from "../store/types.ts";
import { drainQueue, startRun, type StartedRun, type StartRunOptions } from "./admission.ts";
import { cancelRun } from "./cancellation.ts";
import type { Model, ModelFactory } from "../models/model.ts";
import type { EngineCore } from "./engine-core.ts";
import { startEngineTimers, type EngineTimers } from "./engine-timers.ts";
import type { OnHandOff } from "./handoff.ts";
import { sweep } from "./recovery.ts";
import { RunExecutor } from "./run-executor.ts";
import { EngineClosingError } from "./errors.ts";
import { NO_OBSERVER, type EngineObserver } from "./observer.ts";
import { DEFAULT_MEMORY_LIMITS, Memory } from "../memory/memory.ts";
import type { ForeignBounds } from "./foreign/bounds.ts";

export type { StartedRun, StartRunOptions } from "./admission.ts";
export { sweepIntervalMs } from "./engine-timers.ts";

export interface EngineOptions {
  store: EventStore;
  agents: AgentRegistry;
  models: ModelFactory;
  logger: Logger;
  /** This process's name in lease rows; random per process by default. */
  leaseOwner?: string;
  leaseTtlMs?: number;
  /** Called for each run this instance hands over ("out") or continues after a hand-off ("in"): the metrics. */
  onHandOff?: OnHandOff;
  /** Told of every run's execution, end, queueing and recovery (metrics, traces); default: nobody. */
  observer?: EngineObserver;
  /** Memory across threads (docs/memory.md), which tools reach as ctx.memory; default: the store's with the default bounds. */
  memory?: Memory;
  /** What a foreign agent's run may write (foreign/bounds.ts); default DEFAULT_FOREIGN_BOUNDS. */
  foreignBounds?: ForeignBounds;
}

/** How long close() waits for the runs it stopped before it frees their leases anyway. */
export const SHUTDOWN_GRACE_MS = 2_000;

export class Engine {
  readonly leaseOwner: string;
  readonly leaseTtlMs: number;
  readonly #core: EngineCore;
  readonly #models: ModelFactory;
  readonly #executor: RunExecutor;
  #timers: EngineTimers | undefined;
  /** Set by drain(): no run starts here any more, no expired lease is claimed; local runs go on. */
  #draining = false;
  #closed = false;
  /**
   * Whether this engine may hold a lease: it started (its sweep claims), or a run was started on
   * it. One that never did has none to free at close, and does not wait on a database that may be
   * the very reason its start failed.
   */
  #mayHoldLeases = false;
  #sweeping: Promise<void> | undefined;

  constructor(opts: EngineOptions) {
    this.leaseOwner = opts.leaseOwner ?? `threadline-${randomUUID().slice(0, 8)}`;
    this.#models = opts.models;
    this.leaseTtlMs = opts.leaseTtlMs ?? 15_000;
    const logger = opts.logger.child({ instance: this.leaseOwner });
    const observer = opts.observer ?? NO_OBSERVER;
    this.#executor = new RunExecutor({
      store: opts.store,
      models: opts.models,
      logger,
      observer,
      leaseOwner: this.leaseOwner,
      leaseTtlMs: this.leaseTtlMs,
      onSettled: (threadId) => drainQueue(this.#core, threadId),
      onHandOff: opts.onHandOff,
      memory: opts.memory ?? new Memory({ store: opts.store.memory, limits: DEFAULT_MEMORY_LIMITS }),
      ...(opts.foreignBounds && { foreignBounds: opts.foreignBounds }),
    });
    this.#core = {
      store: opts.store,
      agents: opts.agents,
      logger,
      executor: this.#executor,
      observer,
      leaseOwner: this.leaseOwner,
      leaseTtlMs: this.leaseTtlMs,
      onHandOff: opts.onHandOff,
      closed: () => this.#draining || this.#closed,
    };
  }

  /** Starts the lease heartbeat and the recovery sweeper, and recovers what was left behind. */
  async start(): Promise<void> {
    this.#mayHoldLeases = true;
    this.#timers = startEngineTimers({
      leaseTtlMs: this.leaseTtlMs,
      heartbeat: () => this.#executor.heartbeat(this.leaseTtlMs),
      sweep: () => this.sweep(),
    });
    await this.sweep();
  }

  /**
   * The agent's model for what the edge reads of it (its media inputs), or null when the factory
   * throws: that failure belongs to the run that asks the model for an answer (it fails with
   * RUN_ERROR there), not to an admission check or a capabilities document.
   */
  modelIfBuilt(agent: AgentDefinition): Model | null {
    try {
      return this.#models(agent);
    } catch {
      return null;
    }
  }

  /** Starts a run, or applies the thread's double-texting policy when it is busy (admission.ts). */
  startRun(agent: AgentDefinition, input: RunAgentInput, opts: StartRunOptions = {}): Promise<StartedRun> {
    if (this.#draining || this.#closed) return Promise.reject(new EngineClosingError());
    this.#mayHoldLeases = true;
    return startRun(this.#core, agent, input, opts);
  }

  /** Asks the thread's active run to stop, from any instance: the log carries the request. */
  cancel(threadId: string, reason = "cancelled by the user"): Promise<ThreadRow | null> {
    this.#mayHoldLeases = true; // a cancel takes the lease of a run nobody executes
    return cancelRun(this.#core, threadId, reason);
  }

  /**
   * Claims threads whose lease expired and resumes or fails their run. One sweep at a time per
   * instance: the start's sweep and the timer's would otherwise overlap, and a run one of them
   * claimed but has not begun executing yet (its log still being read) is not among the
   * executor's threads the other excludes, so under load its lease could expire and be claimed
   * again here. A call during a sweep joins it.
   */
  sweep(): Promise<void> {
    this.#mayHoldLeases = true;
    this.#sweeping ??= sweep(this.#core).finally(() => (this.#sweeping = undefined));
    return this.#sweeping;
  }

  isRunningLocally(threadId: string): boolean {
    return this.#executor.isRunningLocally(threadId);
  }

  /** Runs executing here now, each under a lease this instance holds and heartbeats. */
  get leasesHeld(): number {
    return this.#executor.size;
  }

  /**
   * The first step of a graceful close: new runs are refused (EngineClosingError, a 503), no
   * queued run or expired lease is taken up here, and each run executing here finishes the step
   * in flight, its lease still heartbeaten, then either ends here (that was its last step) or is
   * handed over before its next one (handoff.ts). Resolves once they have all settled or been
   * handed over, or when `signal` aborts (close() then cuts the steps still in flight).
   */
  async drain(signal?: AbortSignal): Promise<void> {
    this.#draining = true;
    this.#executor.handOverAtNextStep();
    const idle = this.#executor.idle();
    if (!signal) return idle;
    await Promise.race([idle, abortOf(signal)]);
  }

  /**
   * Stops timers and the runs still executing here (an LLM request is aborted, a tool sees its
   * signal), which hand themselves over (a cut step: the next instance redoes it), waits for them
   * at most `graceMs`, then frees every lease this instance still holds in one statement, so
   * another instance's next sweep resumes those runs from the log at once.
   * Rejected: waiting for the stopped runs without a bound, which a tool that ignores its
   * signal would turn into a close that never ends. A run still going after `graceMs` can no
   * longer write: its appends are fenced by the lease it no longer has.
   */
  async close({ graceMs = SHUTDOWN_GRACE_MS }: { graceMs?: number } = {}): Promise<void> {
    this.#closed = true;
    this.#timers?.stop();
    await Promise.race([this.#executor.shutdown(), abortOf(AbortSignal.timeout(graceMs))]);
    if (!this.#mayHoldLeases) return;
    try {
      const released = await this.#core.store.releaseAllLeases(this.leaseOwner);
      if (released.length > 0) this.#core.logger.info({ threads: released }, "released this instance's leases: other instances resume these runs");
    } catch (err) {
      this.#core.logger.warn({ err }, "could not release this instance's leases; they expire by themselves and recovery resumes the runs then");
    }
  }

  /** Waits until every local run has settled (tests). */
  idle(): Promise<void> {
    return this.#executor.idle();
  }
}

function abortOf(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
