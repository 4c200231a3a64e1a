/**
 * GET .../runs/:runId?wait=<ms>: holds the answer until the run is over (finished, failed,
 * cancelled, or waiting for a person) or the wait is up, following the thread's log from where it
 * stood before the run's row was read, so that an end committed in between is seen either way.
 */
import { endsRun } from "../../protocol/lifecycle.ts";
import { wireRunId } from "../../protocol/run-ids.ts";
import { isRunOver } from "../../protocol/run-wire-status.ts";
import type { RunStatusRow } from "../store/sql/run-status.ts";
import type { EventStore } from "../store/types.ts";

/**
 * The longest wait one request may ask for: below the idle timeout of the proxies and balancers
 * in front of most deployments (60 s for nginx's proxy_read_timeout and AWS's ALB), since the
 * answer sends no byte until it ends; a client that wants longer asks again.
 */
export const RUN_WAIT_MAX_MS = 30_000;

/** The run's status now or once it is over, within `waitMs`; null when the thread has no such run. */
export async function waitForRun(store: EventStore, threadId: string, runId: string, waitMs: number, gone: AbortSignal): Promise<RunStatusRow | null> {
  const thread = await store.getThread(threadId);
  const first = await store.runStatus(threadId, runId);
  if (!first || !thread || waitMs <= 0 || isRunOver(first.status)) return first;
  const stop = AbortSignal.any([gone, AbortSignal.timeout(waitMs)]);
  try {
    for await (const batch of store.follow(threadId, thread.lastSeq, stop)) {
      // An end of any admission of this client run (a resume admits it again under its own id).
      if (batch.some((e) => endsRun(e) && e.runId !== null && wireRunId(e.runId) === runId)) break;
    }
  } catch (err) {
    // The wait is up (or the client left): answer what the row says now. Anything else is the
    // request's error, not a quiet "still running".
    if (!stop.aborted) throw err;
  }
  return store.runStatus(threadId, runId);
}
