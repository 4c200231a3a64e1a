/**
 * The app's one status vocabulary: what a thread's status is called and its colour (tone), the
 * same in the top bar, the thread list and, for tool calls, the cards; and the chrome that goes
 * with the page's own thread (whether the input is enabled, whether Stop is offered, a banner).
 * "NEW" is a thread with no run yet. A thread whose last run completed, failed or was cancelled
 * still takes a message: a new run reopens it (protocol/lifecycle.ts), so a failure or a cancel
 * is never a dead end. Rejected: each place spelling statuses its own way, which is how the list
 * said "waiting" and the header "Ready" for one thread, and "Ready" while an approval waited.
 */
import { isSettled } from "../../protocol/lifecycle.ts";
import type { ThreadStatus, ToolCallInfo } from "./api.ts";

/** "NEW": no run yet; "LOADING": the server has not answered for this thread yet. */
export type ChromeStatus = ThreadStatus | "NEW" | "LOADING";

/** A status's colour, as a chip class (`chip-<tone>`, styles.css). */
export type Tone = "new" | "running" | "you" | "complete" | "failed" | "cancelled";

export interface StatusWords {
  label: string;
  tone: Tone;
}

export interface Chrome extends StatusWords {
  spinner: boolean;
  inputEnabled: boolean;
  cancelVisible: boolean;
  banner?: "error" | "cancelled";
}

const WORDS: Record<ChromeStatus, StatusWords> = {
  LOADING: { label: "Loading…", tone: "new" },
  NEW: { label: "New", tone: "new" },
  PENDING: { label: "Starting…", tone: "running" },
  RUNNING: { label: "Working…", tone: "running" },
  WAITING: { label: "Ready", tone: "complete" },
  CANCELLING: { label: "Cancelling…", tone: "running" },
  COMPLETED: { label: "Done", tone: "complete" },
  FAILED: { label: "Failed", tone: "failed" },
  CANCELLED: { label: "Cancelled", tone: "cancelled" },
};

/** WAITING for an approval, a question's answer or a frontend tool's result: the person, not just may, must answer. */
const WAITING_FOR_YOU: StatusWords = { label: "Waiting for you", tone: "you" };

/** What a thread's status is called, wherever it shows; `waitingForYou` as the server marks it (only WAITING has it). */
export function statusWords(status: ChromeStatus, waitingForYou = false): StatusWords {
  return status === "WAITING" && waitingForYou ? WAITING_FOR_YOU : WORDS[status];
}

const CHROME: Record<ChromeStatus, Omit<Chrome, keyof StatusWords>> = {
  LOADING: { spinner: true, inputEnabled: false, cancelVisible: false },
  NEW: { spinner: false, inputEnabled: true, cancelVisible: false },
  // Stop already: a run this page sent is on its way, and the person may change their mind
  // before the server's row says RUNNING (the chip once stayed here for a whole run, with no Stop).
  PENDING: { spinner: true, inputEnabled: false, cancelVisible: true },
  RUNNING: { spinner: true, inputEnabled: false, cancelVisible: true },
  WAITING: { spinner: false, inputEnabled: true, cancelVisible: false },
  CANCELLING: { spinner: true, inputEnabled: false, cancelVisible: false },
  COMPLETED: { spinner: false, inputEnabled: true, cancelVisible: false },
  FAILED: { spinner: false, inputEnabled: true, cancelVisible: false, banner: "error" },
  CANCELLED: { spinner: false, inputEnabled: true, cancelVisible: false, banner: "cancelled" },
};

/** The page's own thread: its words and what the page offers in that status. */
export function chromeFor(status: ChromeStatus, waitingForYou = false): Chrome {
  return { ...statusWords(status, waitingForYou), ...CHROME[status] };
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

/** A card status's tone: the thread's colours (a call waiting on the person is "you", as its thread is). */
export const CARD_TONE: Record<CardStatus, Tone> = {
  "Awaiting approval": "you",
  "Awaiting answer": "you",
  Running: "running",
  Complete: "complete",
  Failed: "failed",
  Cancelled: "cancelled",
  "Not run": "new",
  Updating: "new",
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
