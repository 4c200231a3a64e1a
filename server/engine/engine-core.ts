/** What the engine's parts (admission, cancellation, recovery) share: its seams and its name. */
import type { Logger } from "pino";
import type { AgentRegistry } from "../agents/define.ts";
import type { EventStore } from "../store/types.ts";
import type { OnHandOff } from "./handoff.ts";
import type { EngineObserver } from "./observer.ts";
import type { RunExecutor } from "./run-executor.ts";

export interface EngineCore {
  readonly store: EventStore;
  readonly agents: AgentRegistry;
  readonly logger: Logger;
  readonly executor: RunExecutor;
  /** Metrics and traces (observer.ts); the engine's parts report runs they end or queue to it. */
  readonly observer: EngineObserver;
  /** This process's name in lease rows: the lease owner of every run it executes. */
  readonly leaseOwner: string;
  readonly leaseTtlMs: number;
  /** Counts the runs handed over to this instance (and by it: the executor has its own). */
  readonly onHandOff?: OnHandOff;
  /** True once the engine is closing: nothing new starts. */
  closed(): boolean;
}
