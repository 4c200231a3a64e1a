/** Domain errors of the engine: typed, with the ids involved, and a sentence saying what to do. */
import { wireRunId } from "../../protocol/run-ids.ts";
import type { ThreadStatus } from "../../protocol/status.ts";
import { ConflictError, ServiceUnavailableError } from "../errors.ts";

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
      (api) =>
        `Thread ${threadId} is ${threadStatus}${activeRunId ? ` with run ${wireRunId(activeRunId)}` : ""}. ` +
        `Wait for it to finish, cancel it (POST ${api}/threads/${threadId}/cancel), or send the run ` +
        `with "forwardedProps": {"threadline": {"doubleTexting": "enqueue" | "interrupt"}}.`,
      { threadId, activeRunId, status: threadStatus },
    );
  }
}

/**
 * 409: the run's history is a stale copy of the thread (protocol/branches.ts isStaleCopy): it
 * lacks what the thread has after `headMessageId`'s predecessors and adds a new user message,
 * and no parentRunId explains it.
 */
export class StaleHistoryError extends ConflictError {
  override readonly name = "StaleHistoryError";
  constructor(
    readonly threadId: string,
    readonly headMessageId: string | null,
    readonly branch: string,
  ) {
    super(
      "STALE_HISTORY",
      (api) =>
        `Thread ${threadId} has moved on since this history was read: it now ends at message ${headMessageId ?? "(none)"}, ` +
        `which this run's messages leave out. Nothing was written. Read the thread again (GET ${api}/threads/${threadId}, ` +
        `or connect) and send the new message after its last one; to branch off on purpose, name the run to branch ` +
        `from in "parentRunId" (AG-UI's way) or send the run with "forwardedProps": {"threadline": {"fork": true}}.`,
      { threadId, headMessageId, branch },
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
      (api) =>
        `Thread ${threadId} belongs to agent "${threadAgentId}", not "${requestedAgentId}". ` +
        `Send this run to ${api}/agents/${threadAgentId}/run, or use a new threadId.`,
      { threadId, agentId: threadAgentId },
    );
  }
}

export class RunIdReusedError extends ConflictError {
  override readonly name = "RunIdReusedError";
  constructor(
    readonly threadId: string,
    readonly runId: string,
  ) {
    super(
      "RUN_ID_REUSED",
      (api) =>
        `Thread ${threadId} already has a run "${runId}". Every run needs a new runId: generate one ` +
        `(a UUID) per request, and to follow a run you started, POST ${api}/agents/<agent>/connect.`,
      { threadId, runId },
    );
  }
}

/** 503 while the instance closes: its runs finish or move to another instance; retry there. */
export class EngineClosingError extends ServiceUnavailableError {
  override readonly name = "EngineClosingError";
  constructor() {
    super(
      "SERVER_CLOSING",
      "This server instance is shutting down and starts no new runs. Send the run again in a few seconds (another instance, or this one after its restart, takes it).",
      ENGINE_CLOSING_RETRY_AFTER_S,
    );
  }
}

/** What Retry-After tells a client refused by a closing instance: about one restart, or one sweep of another instance. */
export const ENGINE_CLOSING_RETRY_AFTER_S = 5;

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

/**
 * Why a run stopped before its end. Only "cancelled" ends it; the others leave it to recovery,
 * which resumes it from the log: "lease_lost" (another instance took it over, or may have),
 * "handoff" (this process is draining: the run stopped between two steps, to be handed over),
 * "shutdown" (this process is stopping: the drain ended with a step still in flight),
 * "store_lost" (the database stopped answering, or a commit's outcome is unknown: the log, read
 * again, says what was written).
 */
export type AbortReason = "cancelled" | "lease_lost" | "handoff" | "shutdown" | "store_lost";

/** True when the run is not over: whoever holds the lease next resumes it from the log. */
export function resumesLater(reason: AbortReason): boolean {
  return reason !== "cancelled";
}

/** Thrown inside a run when it was cancelled, interrupted, or its lease was lost. */
export class RunAborted extends Error {
  override readonly name = "RunAborted";
  constructor(readonly reason: AbortReason) {
    super(`run aborted: ${reason}`);
  }
}

/**
 * Thrown inside a run when a tool needs the user (approval, ctx.interrupt): the run ends WAITING
 * for these interrupts. Not a failure: the loop turns it into its "waiting" outcome.
 */
export class InterruptRaised extends Error {
  override readonly name = "InterruptRaised";
  constructor(
    readonly kind: "approval" | "input",
    readonly interruptIds: string[],
  ) {
    super(`run waits for interrupt(s) ${interruptIds.join(", ")}`);
  }
}
