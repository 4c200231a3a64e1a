/**
 * Recovery: threads whose lease expired (their instance died, froze or lost the database) are
 * claimed with FOR UPDATE SKIP LOCKED and their run is resumed from its last durable step, or
 * failed when the agent asks for that (onRecovery: "fail").
 */
import type { Logger } from "pino";
import type { EventOf, WorkflowEvent } from "../../protocol/events.ts";
import type { Reconstructor } from "../../protocol/reconstruct.ts";
import type { AgentDefinition } from "../agents/define.ts";
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
    const { fold, accepted, startedRuns, modelRequests } = await foldForRecovery(core, row);
    const agent = core.agents.get(row.agentId);
    if (!accepted) {
      log.warn("claimed a thread with no run to recover; releasing it");
      return await core.store.releaseLease(threadId, core.leaseOwner);
    }
    const runId = accepted.data.runId;
    if (!agent) {
      await failRun(core, threadId, runId, { code: "AGENT_NOT_FOUND", message: `Agent "${row.agentId}" is not hosted here any more.` });
      return; // the failure's commit freed the lease
    }
    if (agent.onRecovery === "fail") {
      await failRun(core, threadId, runId, { code: "INSTANCE_LOST", message: "The server running this conversation stopped; send your message again." });
      log.info("failed a run whose instance stopped heartbeating (agent onRecovery: fail)");
      return;
    }
    await resumeRun(core, row, agent, accepted, { started: startedRuns.has(runId), modelRequests: modelRequests.get(runId) ?? 0 }, fold, log);
  } catch (err) {
    log.error({ err }, "recovery failed; the lease will expire and another sweep will retry");
  }
}

/**
 * The thread folded to its end, and the run to recover: the active one, else the last accepted.
 * Only what recovery decides on is kept of the events after the checkpoint: the runs accepted,
 * the runs started, and the model requests each run made (task.created of kind "llm"), which its
 * maxTurns counts on from (the tail of a long run is thousands of stream events). A run's events
 * all follow the checkpoint, which is written at a run's end. Rejected: a request counter of its
 * own in the runs table, a second record of what the log already says.
 */
async function foldForRecovery(core: EngineCore, row: ThreadRow) {
  const acceptedRuns: EventOf<"run.accepted">[] = [];
  const startedRuns = new Set<string>();
  const modelRequests = new Map<string, number>();
  const fold = await foldThread(core.store, row.threadId, {
    onEvent: (e) => {
      if (e.type === "run.accepted") acceptedRuns.push(e);
      else if (e.type === "workflow.started") startedRuns.add(e.data.runId);
      else if (e.type === "task.created" && e.data.kind === "llm") modelRequests.set(e.data.runId, (modelRequests.get(e.data.runId) ?? 0) + 1);
    },
  });
  return { fold, accepted: lastAccepted(acceptedRuns, row.activeRunId), startedRuns, modelRequests };
}

/** Ends the run as failed under this instance's lease; the commit frees the lease. */
async function failRun(core: EngineCore, threadId: string, runId: string, error: { code: string; message: string }): Promise<void> {
  await core.store.append(threadId, [{ type: "workflow.failed", data: { runId, error } }], { leaseOwner: core.leaseOwner });
}

/**
 * Marks the run resumed here (or started, when it was admitted but never began) and executes it
 * from the fold: the conversation and state as of its last durable step.
 */
async function resumeRun(
  core: EngineCore,
  { threadId, tenantId }: ThreadRow,
  agent: AgentDefinition,
  accepted: EventOf<"run.accepted">,
  { started, modelRequests }: { started: boolean; modelRequests: number },
  fold: Reconstructor,
  log: Logger,
): Promise<void> {
  const runId = accepted.data.runId;
  const resumed: WorkflowEvent = started
    ? { type: "workflow.resumed", data: { runId, reason: "recovered", owner: core.leaseOwner } }
    : { type: "workflow.started", data: { runId } };
  const stored = await core.store.append(threadId, [resumed], { leaseOwner: core.leaseOwner });
  log.info("recovering a run whose instance stopped heartbeating");
  const snapshot = fold.snapshot();
  for (const e of stored) fold.push(e);
  core.executor.execute({
    threadId,
    tenantId,
    runId,
    agent,
    frontendTools: accepted.data.tools,
    context: accepted.data.context,
    forwardedProps: accepted.data.forwardedProps,
    messages: snapshot.messages,
    state: snapshot.state,
    afterSeq: stored[0]!.seq,
    fold,
    modelRequests,
  });
}

function lastAccepted(accepted: EventOf<"run.accepted">[], runId: string | null) {
  for (let i = accepted.length - 1; i >= 0; i--) {
    const e = accepted[i]!;
    if (runId === null || e.data.runId === runId) return e;
  }
  return undefined;
}
