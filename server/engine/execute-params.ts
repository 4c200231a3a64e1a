/** What the executor starts a run from (run-executor.ts), and who the run is to its observer. */
import type { TraceContext } from "../../protocol/trace-context.ts";
import type { Reconstructor } from "../../protocol/reconstruct.ts";
import type { CutAnswer } from "./cut-answer.ts";
import type { RunFacts } from "./observer.ts";
import type { RunContext } from "./run-context.ts";

/** What a run starts from: the parts of its RunContext read from the log or the request. */
export type ExecuteParams = Pick<RunContext, "threadId" | "tenantId" | "runId" | "agent" | "frontendTools" | "context" | "forwardedProps" | "messages" | "state" | "modelRequests"> & {
  /** The log position up to which this executor already knows the thread. */
  afterSeq: number;
  /**
   * The thread's reconstruction fold as of `afterSeq`. The run folds its own commits into it,
   * and its end stores it as the thread's checkpoint: nothing else writes conversation or state
   * while the run holds the lease.
   */
  fold: Reconstructor;
  /** The run's steps the log records as done before this executor took it up (0 for a new run). */
  stepsDone?: number;
  /** The answer a cut model request had streamed, to continue (recovery, cut-answer.ts). */
  cutAnswer?: CutAnswer;
  /** The request that posted the run (its run.accepted), named by every log line of the run. */
  requestId?: string;
  /** The W3C trace context it was posted with (its run.accepted): the parent of its span. */
  traceContext?: TraceContext;
  /** Taken over by recovery from an instance that stopped heartbeating. */
  recovered?: boolean;
};

export function factsOf({ threadId, runId, tenantId, agent, requestId, traceContext }: ExecuteParams): RunFacts {
  return { threadId, runId, tenantId, agentId: agent.id, ...(requestId !== undefined && { requestId }), ...(traceContext && { traceContext }) };
}
