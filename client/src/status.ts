/**
 * The status chrome, from the thread's workflow status (one row per status): what the page shows,
 * whether the input is enabled and whether Cancel is offered. "NEW" is a thread with no run yet.
 * A thread whose last run completed, failed or was cancelled still takes a message: a new run
 * reopens it (protocol/lifecycle.ts), so a failure or a cancel is never a dead end.
 */
import { isSettled } from "../../protocol/lifecycle.ts";
import type { ThreadStatus, ToolCallInfo } from "./api.ts";

/** "NEW": no run yet; "LOADING": the server has not answered for this thread yet. */
export type ChromeStatus = ThreadStatus | "NEW" | "LOADING";

export interface Chrome {
  label: string;
  spinner: boolean;
  inputEnabled: boolean;
  cancelVisible: boolean;
  banner?: "error" | "cancelled";
}

const TABLE: Record<ChromeStatus, Chrome> = {
  LOADING: { label: "Loading…", spinner: true, inputEnabled: false, cancelVisible: false },
  NEW: { label: "New", spinner: false, inputEnabled: true, cancelVisible: false },
  PENDING: { label: "Starting…", spinner: true, inputEnabled: false, cancelVisible: false },
  RUNNING: { label: "Thinking…", spinner: true, inputEnabled: false, cancelVisible: true },
  WAITING: { label: "Ready", spinner: false, inputEnabled: true, cancelVisible: false },
  CANCELLING: { label: "Cancelling…", spinner: true, inputEnabled: false, cancelVisible: false },
  COMPLETED: { label: "Completed", spinner: false, inputEnabled: true, cancelVisible: false },
  FAILED: { label: "Failed", spinner: false, inputEnabled: true, cancelVisible: false, banner: "error" },
  CANCELLED: { label: "Cancelled", spinner: false, inputEnabled: true, cancelVisible: false, banner: "cancelled" },
};

export function chromeFor(status: ChromeStatus, toolCalls: Record<string, ToolCallInfo> = {}): Chrome {
  const chrome = TABLE[status];
  if (status !== "RUNNING") return chrome;
  const running = Object.values(toolCalls).find((c) => c.status === "running");
  return running ? { ...chrome, label: `Running ${running.name}…` } : chrome;
}

/** A thread status in which nothing runs (protocol/lifecycle.ts); NEW and LOADING are not. */
export function settled(status: ChromeStatus): status is ThreadStatus {
  return status !== "NEW" && status !== "LOADING" && isSettled(status);
}

/** A tool card's status: what the log says became of the call (protocol/tool-status.ts), as shown. */
export type CardStatus = "Awaiting approval" | "Awaiting answer" | "Running" | "Complete" | "Failed" | "Cancelled" | "Not run" | "Updating";

const CARD: Record<ToolCallInfo["status"], CardStatus> = {
  awaiting_approval: "Awaiting approval",
  awaiting_input: "Awaiting answer",
  running: "Running",
  complete: "Complete",
  failed: "Failed",
  cancelled: "Cancelled",
  never_run: "Not run",
};

/** The chip's colour class for a card status (styles.css has one per thread status). */
export const CARD_CHIP: Record<CardStatus, string> = {
  "Awaiting approval": "chip-pending",
  "Awaiting answer": "chip-pending",
  Running: "chip-running",
  Complete: "chip-complete",
  Failed: "chip-failed",
  Cancelled: "chip-cancelled",
  "Not run": "chip-new",
  Updating: "chip-new",
};

/** Why a call was cancelled or not run, in words, when the log says. */
export const CARD_REASON: Record<NonNullable<ToolCallInfo["reason"]>, string> = {
  denied: "denied by you",
  skipped: "skipped: a newer message came first",
  superseded: "closed: a newer message came instead of an answer",
  expired: "closed: the question expired",
  run_cancelled: "the run was cancelled",
  run_failed: "the run failed",
  not_run: "the run ended before it",
};

/**
 * A tool card's status: the server's view of the log, the same live and after a reload. The one
 * thing the page knows first is a result that just streamed in (CopilotKit's "complete"), shown
 * before the view catches up. Without a view of the call yet, "Running" while the thread is
 * active; otherwise "Updating" until the view arrives, rather than guessing "Complete" (the guess
 * that showed an email awaiting approval as sent).
 */
export function cardStatus(
  renderStatus: "inProgress" | "executing" | "complete",
  server: ToolCallInfo | undefined,
  thread: ChromeStatus,
): CardStatus {
  if (server) return renderStatus === "complete" && server.status === "running" ? "Complete" : CARD[server.status];
  if (renderStatus === "complete") return "Complete";
  return settled(thread) ? "Updating" : "Running";
}
