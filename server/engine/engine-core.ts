/** What the engine's parts (admission, cancellation, recovery) share: its seams and its name. */
import type { Logger } from "pino";
import type { AgentRegistry } from "../agents/define.ts";
import type { EventStore } from "../store/types.ts";
import type { RunExecutor } from "./run-executor.ts";

export interface EngineCore {
  readonly store: EventStore;
  readonly agents: AgentRegistry;
  readonly logger: Logger;
  readonly executor: RunExecutor;
  /** This process's name in lease rows: the lease owner of every run it executes. */
  readonly leaseOwner: string;
  readonly leaseTtlMs: number;
  /** True once the engine is closing: nothing new starts. */
  closed(): boolean;
}
