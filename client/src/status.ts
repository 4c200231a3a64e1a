/**
 * The status chrome, from the thread's workflow status (one row per status): what the page shows,
 * whether the input is enabled and whether Cancel is offered. "NEW" is a thread with no run yet.
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
  NEW: { label: "New conversation", spinner: false, inputEnabled: true, cancelVisible: false },
  PENDING: { label: "Starting…", spinner: true, inputEnabled: false, cancelVisible: false },
  RUNNING: { label: "Thinking…", spinner: true, inputEnabled: false, cancelVisible: true },
  WAITING: { label: "Ready", spinner: false, inputEnabled: true, cancelVisible: false },
  CANCELLING: { label: "Cancelling…", spinner: true, inputEnabled: false, cancelVisible: false },
  COMPLETED: { label: "Completed", spinner: false, inputEnabled: false, cancelVisible: false },
  FAILED: { label: "Failed", spinner: false, inputEnabled: false, cancelVisible: false, banner: "error" },
  CANCELLED: { label: "Cancelled", spinner: false, inputEnabled: false, cancelVisible: false, banner: "cancelled" },
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

export type CardStatus = "Running" | "Complete" | "Failed";

/**
 * A tool card's status. The server's view wins once it has one; and once the thread is WAITING
 * or terminal nothing runs, so no card says Running (a card left Running by a lost
 * stream would stay so forever), reload or not.
 */
export function cardStatus(
  renderStatus: "inProgress" | "executing" | "complete",
  server: ToolCallInfo | undefined,
  thread: ChromeStatus,
): CardStatus {
  if (server?.status === "failed") return "Failed";
  if (renderStatus === "complete" || server?.status === "complete") return "Complete";
  if (settled(thread)) return "Complete";
  return "Running";
}
