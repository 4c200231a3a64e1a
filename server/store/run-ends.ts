/**
 * The runs a flush ends (their terminal event is in the batch), for the webhook outbox statement
 * the flush adds to its transaction (sql/webhook-outbox.ts). Read from the batch's plan, which
 * already knows each run's final status: a flush of tokens, which ends no run, costs one pass over
 * its runs (usually none) and adds no statement.
 */
import { endsRun, SETTLED_RUN_STATUSES } from "../../protocol/lifecycle.ts";
import { wireRunStatus } from "../../protocol/run-wire-status.ts";
import type { WorkflowEvent } from "../../protocol/events.ts";
import type { BatchPlan } from "./batch.ts";
import type { RunEnd } from "./sql/webhook-outbox.ts";

const SETTLED: ReadonlySet<string> = new Set(SETTLED_RUN_STATUSES);

export function runEndsOf(appends: readonly { threadId: string; events: readonly WorkflowEvent[] }[], plan: BatchPlan): RunEnd[] {
  const ends: RunEnd[] = [];
  const { ids, threadIds, statuses } = plan.runs;
  for (let i = 0; i < ids.length; i++) {
    if (!SETTLED.has(statuses[i]!)) continue;
    const threadId = threadIds[i]!;
    const runId = ids[i]!;
    const end = terminalOf(appends, threadId, runId);
    const failed = end?.type === "workflow.failed" ? end.data.error : undefined;
    const reason = end?.type === "workflow.suspended" ? end.data.reason : undefined;
    ends.push({ threadId, runId, status: statuses[i]!, wireStatus: wireRunStatus(statuses[i]!, reason), error: failed ? JSON.stringify(failed) : null });
  }
  return ends;
}

function terminalOf(appends: readonly { threadId: string; events: readonly WorkflowEvent[] }[], threadId: string, runId: string): WorkflowEvent | undefined {
  let found: WorkflowEvent | undefined;
  for (const a of appends) {
    if (a.threadId !== threadId) continue;
    for (const e of a.events) if (endsRun(e) && "runId" in e.data && e.data.runId === runId) found = e;
  }
  return found;
}
