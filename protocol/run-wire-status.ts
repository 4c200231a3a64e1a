/**
 * A run's status as the background-run API and webhooks name it (issue 34's fixed surface). The
 * runs table says `waiting` for every suspended run, but most of those are simply done: a chat
 * turn ends suspended for the next message (reason "input"), which a caller knows as finished.
 * Only a run that waits for a person (an approval, an interrupt's answer, a frontend tool's
 * result) is `waiting`; `completed` is said `finished` too (AG-UI's RUN_FINISHED). One owner, for
 * the GET of a run and the body of its webhook.
 */
import type { RunStatus } from "./lifecycle.ts";

export type WireRunStatus = "queued" | "running" | "waiting" | "finished" | "failed" | "cancelled";

/** `suspendReason`: workflow.suspended's reason, for a run whose status is `waiting`. */
export function wireRunStatus(status: RunStatus | string, suspendReason?: string): WireRunStatus {
  if (status === "completed") return "finished";
  if (status === "waiting") return suspendReason === undefined || suspendReason === "input" ? "finished" : "waiting";
  return status as WireRunStatus;
}

/** Whether a run in this (runs table) status is over for someone waiting on it. */
export function isRunOver(status: RunStatus | string): boolean {
  return status === "completed" || status === "failed" || status === "cancelled" || status === "waiting";
}
