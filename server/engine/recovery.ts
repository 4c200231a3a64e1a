/**
 * Recovery: threads whose lease expired (their instance died, froze or lost the database) are
 * claimed with FOR UPDATE SKIP LOCKED and their run is resumed from its last durable step, or
 * failed when the agent asks for that (onRecovery: "fail").
 */
import type { EventOf, WorkflowEvent } from "../../protocol/events.ts";
import type { ThreadRow } from "../store/types.ts";
import { settleCancelled } from "./cancellation.ts";
import type { EngineCore } from "./engine-core.ts";
import { foldThread } from "./thread-fold.ts";

/** How many expired threads one sweep claims at most. */
const CLAIMS_PER_SWEEP = 5;

/** Claims threads whose lease expired and resumes or fails their run. */
export async function sweep(core: EngineCore): Promise<void> {
  if (core.closed()) return;
  try {
    const claimed = await core.store.claimExpired(core.leaseOwner, core.leaseTtlMs, CLAIMS_PER_SWEEP);
    for (const row of claimed) await recover(core, row);
  } catch (err) {
    core.logger.warn({ err }, "recovery sweep failed; the next sweep tries again");
  }
}

export async function recover(core: EngineCore, row: ThreadRow): Promise<void> {
  const { threadId } = row;
  const log = core.logger.child({ threadId, runId: row.activeRunId });
  try {
    if (row.status === "CANCELLING") return await settleCancelled(core, threadId);
    // Only what recovery decides on is kept of the events after the checkpoint: the runs
    // accepted and the runs started (the tail of a long run is thousands of stream events).
    const acceptedRuns: EventOf<"run.accepted">[] = [];
    const startedRuns = new Set<string>();
    const fold = await foldThread(core.store, threadId, {
      onEvent: (e) => {
        if (e.type === "run.accepted") acceptedRuns.push(e);
        else if (e.type === "workflow.started") startedRuns.add(e.data.runId);
      },
    });
    const accepted = lastAccepted(acceptedRuns, row.activeRunId);
    const agent = core.agents.get(row.agentId);
    if (!accepted) {
      log.warn("claimed a thread with no run to recover; releasing it");
      return await core.store.releaseLease(threadId, core.leaseOwner);
    }
    const runId = accepted.data.runId;
    if (!agent) {
      await core.store.append(threadId, [
        {
          type: "workflow.failed",
          data: { runId, error: { code: "AGENT_NOT_FOUND", message: `Agent "${row.agentId}" is not hosted here any more.` } },
        },
      ], { leaseOwner: core.leaseOwner });
      return; // the failure's commit freed the lease
    }
    if (agent.onRecovery === "fail") {
      await core.store.append(threadId, [
        {
          type: "workflow.failed",
          data: { runId, error: { code: "INSTANCE_LOST", message: "The server running this conversation stopped; send your message again." } },
        },
      ], { leaseOwner: core.leaseOwner });
      log.info("failed a run whose instance stopped heartbeating (agent onRecovery: fail)");
      return;
    }
    const started = startedRuns.has(runId);
    const resumed: WorkflowEvent = started
      ? { type: "workflow.resumed", data: { runId, reason: "recovered", owner: core.leaseOwner } }
      : { type: "workflow.started", data: { runId } };
    const stored = await core.store.append(threadId, [resumed], { leaseOwner: core.leaseOwner });
    log.info("recovering a run whose instance stopped heartbeating");
    const snapshot = fold.snapshot();
    for (const e of stored) fold.push(e);
    core.executor.execute({
      threadId,
      runId,
      agent,
      frontendTools: accepted.data.tools,
      context: accepted.data.context,
      forwardedProps: accepted.data.forwardedProps,
      messages: snapshot.messages,
      state: snapshot.state,
      afterSeq: stored[0]!.seq,
      fold,
    });
  } catch (err) {
    log.error({ err }, "recovery failed; the lease will expire and another sweep will retry");
  }
}

function lastAccepted(accepted: EventOf<"run.accepted">[], runId: string | null) {
  for (let i = accepted.length - 1; i >= 0; i--) {
    const e = accepted[i]!;
    if (runId === null || e.data.runId === runId) return e;
  }
  return undefined;
}
