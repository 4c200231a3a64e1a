/**
 * Recovery: threads whose lease expired (their instance died, froze or lost the database) or was
 * given back by a draining instance (a hand-off, handoff.ts) are claimed with FOR UPDATE SKIP
 * LOCKED and their run is resumed from its last durable step, or failed when the agent asks for
 * that (onRecovery: "fail"). A model request the stopped instance was streaming is re-issued,
 * and its answer continues the words clients already have (cut-answer.ts, answer-echo.ts).
 */
import { traceIdOf } from "../../protocol/trace-context.ts";
import type { Logger } from "pino";
import type { EventOf, WorkflowEvent } from "../../protocol/events.ts";
import type { Reconstructor } from "../../protocol/reconstruct.ts";
import type { AgentDefinition } from "../agents/define.ts";
import type { ThreadRow } from "../store/types.ts";
import { settleCancelled } from "./cancellation.ts";
import { CutAnswerFold, cutAnswerIds } from "./cut-answer.ts";
import type { EngineCore } from "./engine-core.ts";
import { continued, type HandedOver } from "./handoff.ts";
import type { RunFacts } from "./observer.ts";
import { instantEnd, reportRunEnd } from "./run-end.ts";
import { foldThread } from "./thread-fold.ts";

/** How many expired threads one sweep claims at most. */
const CLAIMS_PER_SWEEP = 5;

/** Claims threads whose lease expired and resumes or fails their run. */
export async function sweep(core: EngineCore): Promise<void> {
  if (core.closed()) return;
  try {
    const claimed = await core.store.claimExpired(core.leaseOwner, core.leaseTtlMs, CLAIMS_PER_SWEEP, core.executor.threadsHere());
    for (const row of claimed) await recover(core, row);
  } catch (err) {
    core.logger.warn({ err }, "recovery sweep failed; the next sweep tries again");
  }
}

export async function recover(core: EngineCore, row: ThreadRow): Promise<void> {
  const { threadId } = row;
  let log = core.logger.child({ threadId, runId: row.activeRunId });
  try {
    if (row.status === "CANCELLING") {
      const cancelled = await settleCancelled(core, threadId);
      if (cancelled) core.observer.recovery(cancelled, "cancelled");
      return;
    }
    const found = await foldForRecovery(core, row);
    const { fold, accepted } = found;
    const agent = core.agents.get(row.agentId);
    if (!accepted) {
      log.warn("claimed a thread with no run to recover; releasing it");
      return await core.store.releaseLease(threadId, core.leaseOwner);
    }
    const runId = accepted.data.runId;
    const { requestId, traceContext } = accepted.data;
    const run: RunFacts = { threadId, runId, tenantId: row.tenantId, agentId: row.agentId, ...(requestId !== undefined && { requestId }), ...(traceContext && { traceContext }) };
    log = core.logger.child({ threadId, runId, ...(requestId !== undefined && { requestId }), ...(traceContext && { trace_id: traceIdOf(traceContext) }) });
    // An agent that lived only in the stopped instance (agentRunner()): it cannot go on anywhere,
    // and it is in no registry here, so its run says why it ended as its admission recorded.
    if (accepted.data.onLost) {
      log.info("failing a run whose agent lived only in the instance that stopped");
      await failRun(core, run, accepted.data.onLost, log);
      return;
    }
    if (!agent) {
      await failRun(core, run, { code: "AGENT_NOT_FOUND", message: `Agent "${row.agentId}" is not hosted here any more.` }, log);
      return; // the failure's commit freed the lease
    }
    if (agent.onRecovery === "fail") {
      log.info(found.handedOver.get(runId) ? "failing a run handed over by a draining instance (agent onRecovery: fail)" : "failing a run whose instance stopped heartbeating (agent onRecovery: fail)");
      await failRun(core, run, lostRunError(agent), log);
      return;
    }
    const progress: RunProgress = {
      started: found.startedRuns.has(runId),
      modelRequests: found.modelRequests.get(runId) ?? 0,
      steps: found.steps.get(runId) ?? 0,
      handedOver: found.handedOver.get(runId),
      cut: found.cut?.runId === runId ? found.cut.result() : undefined,
    };
    await resumeRun(core, row, agent, accepted, progress, fold, log);
    core.observer.recovery(run, "resumed");
  } catch (err) {
    log.error({ err }, "recovery failed; the lease will expire and another sweep will retry");
  }
}

/** What recovery knows of the run it resumes, from the log. */
interface RunProgress {
  started: boolean;
  /** Its model requests (task.created of kind "llm"): maxTurns counts on from them. */
  modelRequests: number;
  /** Its durable steps (task.completed): the step a hand-off names. */
  steps: number;
  /** Set when a draining instance handed it over (and nobody resumed it since). */
  handedOver: HandedOver | undefined;
  /** The answer a model request was streaming when it stopped, to continue. */
  cut: ReturnType<CutAnswerFold["result"]>;
}

/**
 * The thread folded to its end, and the run to recover: the active one, else the last accepted.
 * Only what recovery decides on is kept of the events after the checkpoint: the runs accepted,
 * the runs started, the model requests and the completed steps of each run (maxTurns counts on
 * from the first; hand-offs name the second), its last hand-off, and what the active run's cut
 * model request had streamed (the tail of a long run is thousands of stream events; the cut
 * answer keeps only the open text). A run's events all follow the checkpoint, which is written at
 * a run's end. Rejected: counters of their own in the runs table, a second record of what the
 * log already says.
 */
async function foldForRecovery(core: EngineCore, row: ThreadRow) {
  const acceptedRuns: EventOf<"run.accepted">[] = [];
  const startedRuns = new Set<string>();
  const modelRequests = new Map<string, number>();
  const steps = new Map<string, number>();
  const handedOver = new Map<string, HandedOver>();
  const cut = row.activeRunId ? new CutAnswerFold(row.activeRunId) : undefined;
  const count = (m: Map<string, number>, runId: string) => m.set(runId, (m.get(runId) ?? 0) + 1);
  const fold = await foldThread(core.store, row.threadId, {
    onEvent: (e) => {
      // A subagent's stream and model requests are its own (subagent-task.ts): neither is the
      // parent's cut answer nor counts against the parent's maxTurns.
      const child = e.data.subagentRunId !== undefined;
      if (!child) cut?.push(e);
      if (e.type === "run.accepted") acceptedRuns.push(e);
      else if (e.type === "workflow.started") startedRuns.add(e.data.runId);
      else if (e.type === "task.created" && e.data.kind === "llm" && !child) count(modelRequests, e.data.runId);
      else if (e.type === "task.completed") count(steps, e.data.runId);
      else if (e.type === "workflow.handed_over") handedOver.set(e.data.runId, { from: e.data.owner, step: e.data.step, cut: e.data.cut });
      else if (e.type === "workflow.resumed") handedOver.delete(e.data.runId);
    },
  });
  return { fold, accepted: lastAccepted(acceptedRuns, row.activeRunId), startedRuns, modelRequests, steps, handedOver, cut };
}

/**
 * Why a run that cannot be resumed ended. A remote agent's run is never re-executed (the remote
 * would run the whole request again, side effects included, and the stream it was sending is
 * gone with the instance that read it): its own code says so, for the user and for alerts.
 */
function lostRunError(agent: AgentDefinition): { code: string; message: string } {
  if (agent.remote) {
    return {
      code: "REMOTE_RUN_LOST",
      message: "The server reading the remote agent's answer stopped before the answer ended, and a remote run cannot be picked up midway. What it had finished is kept; send your message again.",
    };
  }
  return { code: "INSTANCE_LOST", message: "The server running this conversation stopped; send your message again." };
}

/** Ends the run as failed under this instance's lease; the commit frees the lease. */
async function failRun(core: EngineCore, run: RunFacts, error: { code: string; message: string }, log: Logger): Promise<void> {
  await core.store.append(run.threadId, [{ type: "workflow.failed", data: { runId: run.runId, error } }], { leaseOwner: core.leaseOwner });
  core.observer.recovery(run, "failed");
  reportRunEnd(log, core.observer, run, instantEnd("failed", error.code));
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
  { started, modelRequests, steps, handedOver, cut }: RunProgress,
  fold: Reconstructor,
  log: Logger,
): Promise<void> {
  const runId = accepted.data.runId;
  const resumed: WorkflowEvent = started
    ? {
        type: "workflow.resumed",
        data: {
          runId,
          reason: handedOver ? "handed_over" : "recovered",
          owner: core.leaseOwner,
          ...(handedOver && { from: handedOver.from }),
          ...(cut && { continues: cutAnswerIds(cut) }),
        },
      }
    : { type: "workflow.started", data: { runId } };
  const stored = await core.store.append(threadId, [resumed], { leaseOwner: core.leaseOwner });
  if (handedOver) continued(handedOver, log, core.onHandOff);
  else log.info({ step: steps }, `recovering a run whose instance stopped heartbeating, at step ${steps}`);
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
    stepsDone: steps,
    ...(started && cut && { cutAnswer: cut }),
    ...(accepted.data.requestId !== undefined && { requestId: accepted.data.requestId }),
    ...(accepted.data.traceContext && { traceContext: accepted.data.traceContext }),
    recovered: true,
  });
}

function lastAccepted(accepted: EventOf<"run.accepted">[], runId: string | null) {
  for (let i = accepted.length - 1; i >= 0; i--) {
    const e = accepted[i]!;
    if (runId === null || e.data.runId === runId) return e;
  }
  return undefined;
}
