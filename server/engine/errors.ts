/** Domain errors of the engine: typed, with the ids involved, and a sentence saying what to do. */
import type { ThreadStatus } from "../../protocol/status.ts";
import { ConflictError } from "../errors.ts";

/** 409: `status` is the HTTP status (the error model's); the thread's is `threadStatus`. */
export class ThreadBusyError extends ConflictError {
  override readonly name = "ThreadBusyError";
  constructor(
    readonly threadId: string,
    readonly activeRunId: string | null,
    readonly threadStatus: ThreadStatus,
  ) {
    super(
      "THREAD_BUSY",
      `Thread ${threadId} is ${threadStatus}${activeRunId ? ` with run ${activeRunId}` : ""}. ` +
        `Wait for it to finish, cancel it (POST /api/threads/${threadId}/cancel), or send the run ` +
        `with "forwardedProps": {"threadline": {"doubleTexting": "enqueue" | "interrupt"}}.`,
      { threadId, activeRunId, status: threadStatus },
    );
  }
}

export class ThreadAgentMismatchError extends ConflictError {
  override readonly name = "ThreadAgentMismatchError";
  constructor(
    readonly threadId: string,
    readonly threadAgentId: string,
    readonly requestedAgentId: string,
  ) {
    super(
      "THREAD_AGENT_MISMATCH",
      `Thread ${threadId} belongs to agent "${threadAgentId}", not "${requestedAgentId}". ` +
        `Send this run to /api/agents/${threadAgentId}/run, or use a new threadId.`,
      { threadId, agentId: threadAgentId },
    );
  }
}

/** Ends a run with RUN_ERROR: the code goes to the client, the cause to the log. */
export class RunFailure extends Error {
  override readonly name = "RunFailure";
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Thrown inside a run when it was cancelled, interrupted, or its lease was lost. */
export class RunAborted extends Error {
  override readonly name = "RunAborted";
  constructor(readonly reason: "cancelled" | "lease_lost" | "shutdown") {
    super(`run aborted: ${reason}`);
  }
}
