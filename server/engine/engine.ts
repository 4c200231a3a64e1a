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
import type { ChatModelFactory } from "./chat-model.ts";
import type { EngineCore } from "./engine-core.ts";
import { startEngineTimers, type EngineTimers } from "./engine-timers.ts";
import { sweep } from "./recovery.ts";
import { RunExecutor } from "./run-executor.ts";

export type { StartedRun, StartRunOptions } from "./admission.ts";
export { sweepIntervalMs } from "./engine-timers.ts";

export interface EngineOptions {
  store: EventStore;
  agents: AgentRegistry;
  models: ChatModelFactory;
  logger: Logger;
  /** This process's name in lease rows; random per process by default. */
  instanceId?: string;
  leaseTtlMs?: number;
}

export class Engine {
  readonly instanceId: string;
  readonly leaseTtlMs: number;
  readonly #core: EngineCore;
  readonly #executor: RunExecutor;
  #timers: EngineTimers | undefined;
  #closed = false;

  constructor(opts: EngineOptions) {
    this.instanceId = opts.instanceId ?? `threadline-${randomUUID().slice(0, 8)}`;
    this.leaseTtlMs = opts.leaseTtlMs ?? 15_000;
    const logger = opts.logger.child({ instance: this.instanceId });
    this.#executor = new RunExecutor({
      store: opts.store,
      models: opts.models,
      logger,
      leaseOwner: this.instanceId,
      leaseTtlMs: this.leaseTtlMs,
      onSettled: (threadId) => drainQueue(this.#core, threadId),
    });
    this.#core = {
      store: opts.store,
      agents: opts.agents,
      logger,
      executor: this.#executor,
      leaseOwner: this.instanceId,
      leaseTtlMs: this.leaseTtlMs,
      closed: () => this.#closed,
    };
  }

  /** Starts the lease heartbeat and the recovery sweeper, and recovers what was left behind. */
  async start(): Promise<void> {
    this.#timers = startEngineTimers({
      leaseTtlMs: this.leaseTtlMs,
      heartbeat: () => this.#executor.heartbeat(this.leaseTtlMs),
      sweep: () => this.sweep(),
    });
    await this.sweep();
  }

  /** Starts a run, or applies the thread's double-texting policy when it is busy (admission.ts). */
  startRun(agent: AgentDefinition, input: RunAgentInput, opts: StartRunOptions = {}): Promise<StartedRun> {
    return startRun(this.#core, agent, input, opts);
  }

  /** Asks the thread's active run to stop, from any instance: the log carries the request. */
  cancel(threadId: string, reason = "cancelled by the user"): Promise<ThreadRow | null> {
    return cancelRun(this.#core, threadId, reason);
  }

  /** Claims threads whose lease expired and resumes or fails their run. */
  sweep(): Promise<void> {
    return sweep(this.#core);
  }

  isRunningLocally(threadId: string): boolean {
    return this.#executor.isRunningLocally(threadId);
  }

  /** Stops timers and local runs; leases are released so another instance resumes at once. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#timers?.stop();
    await this.#executor.shutdown();
  }

  /** Waits until every local run has settled (tests). */
  idle(): Promise<void> {
    return this.#executor.idle();
  }
}
