/**
 * What one foreign agent's run (remoteAgent, agentRunner) may put in the log and how long its
 * ingestion may hold the event loop: the bounds that keep one tenant's misbehaving agent from
 * stalling another's runs (issue 30: 30 state deltas of 900 KB stalled the loop 9-10 s at load
 * ~16, both that run's lease and another tenant's lapsed; 256 KB of text a delta for 20 s made
 * one 38 MB message).
 *
 * - messageBytes (FOREIGN_MESSAGE_MAX_BYTES, 1 MiB): one text or reasoning message, one tool
 *   call's arguments, one tool result, one state snapshot or delta, as UTF-8 bytes. The same as
 *   the largest event a remote may send (REMOTE_EVENT_MAX_BYTES) and a user's string
 *   (MAX_STRING_BYTES), so an agent answers with what a user may send.
 * - runBytes (FOREIGN_RUN_MAX_BYTES, 16 MiB): everything the run writes to the log, as the JSON
 *   of each event: its stream (deltas), its messages each time they are appended, state, activity,
 *   custom and raw events, and the bytes a `copy` operation duplicates. What a thread holds and a
 *   reload reads grows by at most this per run. Counted as written, so a text counts twice
 *   (its deltas and its message): it is the log's size that the bound protects.
 * Past either, the run ends with one RUN_ERROR (`codes.tooLarge`) naming the bound and its
 * variable. Rejected: truncating (the log would hold an answer the agent did not give).
 *
 * FOREIGN_SLICE_MS: ingestion works at most this long (plus one event's checks, itself bounded
 * by messageBytes) before it gives the event loop back (setImmediate), so heartbeats, other
 * runs and reads go on between the slices of a fast agent.
 */
import { RunFailure } from "../errors.ts";
import type { ForeignCodes } from "./ingest.ts";

export interface ForeignBounds {
  messageBytes: number;
  runBytes: number;
}

export const DEFAULT_FOREIGN_BOUNDS: ForeignBounds = { messageBytes: 1024 * 1024, runBytes: 16 * 1024 * 1024 };

/** Work between two yields of ingestion: well under the lease's heartbeat slack, and a frame's worth of latency. */
export const FOREIGN_SLICE_MS = 10;

/** The run's RUN_ERROR once `what` went past messageBytes. */
export function messageTooLarge(codes: ForeignCodes, bounds: ForeignBounds, what: string): RunFailure {
  return new RunFailure(
    codes.tooLarge,
    `${codes.name} sent ${what} larger than ${bounds.messageBytes} bytes, the most one may carry (FOREIGN_MESSAGE_MAX_BYTES); its run was stopped there. Have the agent send large data by reference (a URL, an id), or raise FOREIGN_MESSAGE_MAX_BYTES.`,
  );
}

/** The run's RUN_ERROR once it wrote more than runBytes. */
export function runTooLarge(codes: ForeignCodes, bounds: ForeignBounds): RunFailure {
  return new RunFailure(
    codes.tooLarge,
    `${codes.name} sent more than ${bounds.runBytes} bytes in one run (text, tool arguments, state and the rest, as written to the log), the most a run may write (FOREIGN_RUN_MAX_BYTES); its run was stopped there. Have the agent send less, or raise FOREIGN_RUN_MAX_BYTES.`,
  );
}

/** Resolves on the event loop's next turn: what ingestion waits for between its slices. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
