/**
 * The thread status machine: the seeds' WorkflowStatus (000_*.txt), with one refinement.
 *
 * A thread is a conversation, and a conversation outlives any one run. The seeds' terminal
 * statuses (COMPLETED, FAILED, CANCELLED) say how the *last run* ended; a new run on such a
 * thread reopens it (-> PENDING). The alternative, refusing every run on a FAILED thread, would
 * force a client to start a new thread after a single upstream 500, which no chat user expects.
 *
 *   (new) -> PENDING -> RUNNING -> WAITING -> PENDING -> RUNNING -> ...
 *                         |  \-> COMPLETED | FAILED
 *                         \-> CANCELLING -> CANCELLED
 *
 * RUNNING -> PENDING is the recovery path: a run whose lease expired is queued again.
 */
import { z } from "zod";
import type { WorkflowEvent } from "./events.ts";

export const ThreadStatusSchema = z.enum([
  "PENDING",
  "RUNNING",
  "WAITING",
  "CANCELLING",
  "COMPLETED",
  "FAILED",
  "CANCELLED",
]);
export type ThreadStatus = z.infer<typeof ThreadStatusSchema>;

const TRANSITIONS: Record<ThreadStatus, readonly ThreadStatus[]> = {
  PENDING: ["RUNNING", "CANCELLING", "CANCELLED", "FAILED"],
  RUNNING: ["RUNNING", "WAITING", "CANCELLING", "COMPLETED", "FAILED", "PENDING"],
  WAITING: ["PENDING", "COMPLETED", "CANCELLED"],
  CANCELLING: ["CANCELLED", "FAILED"],
  COMPLETED: ["PENDING"],
  FAILED: ["PENDING"],
  CANCELLED: ["PENDING"],
};

/** Statuses in which nothing runs: no tool call may be shown running (the seeds' key rule). */
export const SETTLED_STATUSES: readonly ThreadStatus[] = ["WAITING", "COMPLETED", "FAILED", "CANCELLED"];
export const ACTIVE_STATUSES: readonly ThreadStatus[] = ["PENDING", "RUNNING", "CANCELLING"];

export function isSettled(s: ThreadStatus): boolean {
  return SETTLED_STATUSES.includes(s);
}
export function isActive(s: ThreadStatus): boolean {
  return ACTIVE_STATUSES.includes(s);
}

export class IllegalTransitionError extends Error {
  override readonly name = "IllegalTransitionError";
  constructor(
    readonly from: ThreadStatus | null,
    readonly to: ThreadStatus,
    readonly threadId?: string,
  ) {
    super(
      `Thread${threadId ? ` ${threadId}` : ""} cannot go from ${from ?? "(new)"} to ${to}` +
        (from ? `; from ${from} it may go to ${TRANSITIONS[from].join(", ")}` : "; a new thread starts as PENDING"),
    );
  }
}

export function canTransition(from: ThreadStatus | null, to: ThreadStatus): boolean {
  if (from === null) return to === "PENDING";
  return TRANSITIONS[from].includes(to);
}

export function assertTransition(from: ThreadStatus | null, to: ThreadStatus, threadId?: string): void {
  if (!canTransition(from, to)) throw new IllegalTransitionError(from, to, threadId);
}

/** The status an event moves its thread to, if it moves it at all. */
export function statusAfter(e: WorkflowEvent): ThreadStatus | undefined {
  switch (e.type) {
    case "thread.created":
    case "run.accepted":
      return "PENDING";
    case "workflow.started":
    case "workflow.resumed":
      return "RUNNING";
    case "workflow.suspended":
      return "WAITING";
    case "workflow.completed":
      return "COMPLETED";
    case "workflow.failed":
      return "FAILED";
    case "workflow.cancelling":
      return "CANCELLING";
    case "workflow.cancelled":
      return "CANCELLED";
    default:
      return undefined;
  }
}
