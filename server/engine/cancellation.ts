/**
 * Cancellation from any instance: the request is an event in the log (workflow.cancelling), which
 * the run's executor hears wherever it runs; a run nobody executes any more is settled here.
 */
import { canCancel } from "../../protocol/lifecycle.ts";
import { ThreadNotFoundError } from "../store/errors.ts";
import type { ThreadRow } from "../store/types.ts";
import { drainQueue } from "./admission.ts";
import type { EngineCore } from "./engine-core.ts";
import type { RunFacts } from "./observer.ts";
import { instantEnd, reportRunEnd } from "./run-end.ts";

/** Asks the thread's active run to stop; returns the thread as it is afterwards (null: gone). */
export async function cancelRun(core: EngineCore, threadId: string, reason: string): Promise<ThreadRow | null> {
  const { store, executor } = core;
  const thread = await store.getThread(threadId);
  if (!thread || !canCancel(thread.status)) return thread;
  const runId = thread.activeRunId ?? undefined;
  if (!runId) return thread;
  try {
    await store.append(threadId, [{ type: "workflow.cancelling", data: { runId, reason } }]);
  } catch (err) {
    if (err instanceof ThreadNotFoundError) return null; // deleted since: nothing left to cancel
    throw err;
  }
  // Fast path when the run executes here; elsewhere its executor sees the event in the log.
  executor.abortLocal(threadId, "cancelled");
  // Nobody executes it (it ended just now, or its instance died): settle it ourselves.
  if (!executor.isRunningLocally(threadId) && (await store.acquireLease(threadId, core.leaseOwner, core.leaseTtlMs))) {
    await settleCancelled(core, threadId);
  }
  return store.getThread(threadId);
}

/**
 * Called holding the lease of a CANCELLING thread that nobody executes. Returns the run it
 * ended, or undefined when there was none to end.
 */
export async function settleCancelled(core: EngineCore, threadId: string): Promise<RunFacts | undefined> {
  const { store } = core;
  let settled: RunFacts | undefined;
  try {
    const thread = await store.getThread(threadId);
    if (thread?.status === "CANCELLING" && thread.activeRunId) {
      // Its commit frees the lease; releasing afterwards could strip a run started since.
      const runId = thread.activeRunId;
      await store.append(threadId, [
        { type: "workflow.cancelled", data: { runId, reason: "cancelled by the user" } },
      ], { leaseOwner: core.leaseOwner });
      settled = { threadId, runId, tenantId: thread.tenantId, agentId: thread.agentId };
      reportRunEnd(core.logger.child({ threadId, runId }), core.observer, settled, instantEnd("cancelled"));
    }
  } finally {
    if (!settled) await store.releaseLease(threadId, core.leaseOwner);
  }
  void drainQueue(core, threadId);
  return settled;
}
