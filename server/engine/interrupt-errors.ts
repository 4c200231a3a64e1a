/**
 * Refusals of a run that answers interrupts (`resume`) when there is nothing to answer. Each is
 * thrown before anything is written (server/engine/resume.ts), with the ids involved and a
 * sentence saying what to do instead.
 */
import { ConflictError, InvalidRequestError, NotFoundError, type Issue } from "../errors.ts";

function pendingList(pending: string[]): string {
  return pending.length > 0 ? `Its pending interrupts: ${pending.join(", ")}.` : "It has no pending interrupt.";
}

/** 409: the thread is not WAITING, so no interrupt of it is pending. */
export class ThreadNotWaitingError extends ConflictError {
  override readonly name = "ThreadNotWaitingError";
  constructor(
    readonly threadId: string,
    readonly threadStatus: string | null,
    readonly interruptIds: string[],
  ) {
    super(
      "THREAD_NOT_WAITING",
      (api) =>
        `Thread ${threadId} is ${threadStatus ?? "not started"}, not WAITING, so it has no pending interrupt to answer ` +
        `(resume named ${interruptIds.join(", ")}). Send the run without "resume", or wait until the thread is ` +
        `WAITING and answer the interrupts GET ${api}/threads/${threadId} lists under pendingInterrupts.`,
      { threadId, status: threadStatus, interruptIds },
    );
  }
}

/** 404: the thread never asked this interrupt. */
export class InterruptNotFoundError extends NotFoundError {
  override readonly name = "InterruptNotFoundError";
  constructor(
    readonly threadId: string,
    readonly interruptId: string,
    readonly pending: string[],
  ) {
    super(
      "INTERRUPT_NOT_FOUND",
      `Thread ${threadId} has no interrupt "${interruptId}". ${pendingList(pending)} Resume with the ids of the last ` +
        `RUN_FINISHED's outcome.interrupts, or send a new message without "resume".`,
      { threadId, interruptId, pendingInterruptIds: pending },
    );
  }
}

/** 409: the interrupt was answered already (by a resume, a tool result, or a newer message). */
export class InterruptAlreadyResolvedError extends ConflictError {
  override readonly name = "InterruptAlreadyResolvedError";
  constructor(
    readonly threadId: string,
    readonly interruptId: string,
    readonly resolvedByRunId: string,
    readonly pending: string[],
  ) {
    super(
      "INTERRUPT_ALREADY_RESOLVED",
      `Interrupt "${interruptId}" of thread ${threadId} was already answered (in run ${resolvedByRunId}); an answer ` +
        `counts once. ${pendingList(pending)} Send a new message without "resume" to go on.`,
      { threadId, interruptId, resolvedByRunId, pendingInterruptIds: pending },
    );
  }
}

/**
 * 400: the answer itself is malformed (an approval without `approved`, a payload that does not fit
 * the interrupt's responseSchema, an id named twice); `interruptId` names the one it answers.
 */
export class InvalidResumeError extends InvalidRequestError {
  override readonly name = "InvalidResumeError";
  constructor(
    message: string,
    issues: Issue[],
    readonly interruptId?: string,
  ) {
    super("INVALID_RESUME", message, issues, 400, interruptId === undefined ? {} : { interruptId });
  }
}

/** 409: the interrupt's expiresAt has passed; it can only be cancelled now. */
export class InterruptExpiredError extends ConflictError {
  override readonly name = "InterruptExpiredError";
  constructor(
    readonly threadId: string,
    readonly interruptId: string,
    readonly expiresAt: string,
  ) {
    super(
      "INTERRUPT_EXPIRED",
      `Interrupt "${interruptId}" of thread ${threadId} expired at ${expiresAt} and can no longer be answered. ` +
        `Resume it with status "cancelled", or send a new message without "resume": either cancels it, and the ` +
        `step that asked does not run.`,
      { threadId, interruptId, expiresAt },
    );
  }
}
