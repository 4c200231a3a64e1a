/**
 * Turns a batch of queued appends into the column arrays of one INSERT (sql/events.ts
 * appendBatch). Pure: no I/O, so that what a flush writes can be read and tested on its own.
 *
 * Per thread it works out how many sequence numbers to allocate, the status the thread ends in
 * (the last status-moving event wins, protocol/status.ts statusAfter) and what happens to its
 * active run; per run, the status its lifecycle events leave it in.
 */
import { runIdOf, type WorkflowEvent } from "../../protocol/events.ts";
import { statusAfter, type ThreadStatus } from "../../protocol/status.ts";
import type { RunAdmission as Admission, RunStatus } from "./types.ts";

export interface PendingAppend {
  threadId: string;
  events: readonly WorkflowEvent[];
  /** Commit only while this owner holds the thread's lease (EventStore.append's `leaseOwner`). */
  fence?: string;
  /** A run's admission (AppendOptions.admit). Never shares a batch with its thread's other appends. */
  admit?: Admission;
}


export interface BatchPlan {
  /** one entry per thread, sorted by thread id: the order in which rows are locked */
  threads: {
    ids: string[];
    counts: number[];
    statuses: (ThreadStatus | null)[];
    /** whether the batch sets or clears the active run; when true, activeRunIds holds the value */
    touchActive: boolean[];
    activeRunIds: (string | null)[];
    /**
     * Whether the status is a cancel's that the database must check against the row: a cancel
     * with no earlier status event in the batch moves the thread only if its run is still
     * active there (sql/events.ts). With one, the rule is applied here.
     */
    cancelGuards: boolean[];
    /** The lease owner the thread's appends are fenced by, or null (the writer never mixes two). */
    fences: (string | null)[];
    /** The admission of the thread's append, as columns (null where the append admits no run). */
    admitAgents: (string | null)[];
    admitTenants: (string | null)[];
    admitOwners: (string | null)[];
    admitTtls: (number | null)[];
    admitSeqs: (number | null)[];
  };
  /** one entry per event, in queue order; seq = the thread's base + offset */
  events: {
    threadIds: string[];
    offsets: number[];
    runIds: (string | null)[];
    types: string[];
    data: string[];
  };
  /** one entry per run touched by a lifecycle event, with its final status in the batch */
  runs: {
    ids: string[];
    threadIds: string[];
    statuses: RunStatus[];
    inputs: (string | null)[];
  };
  /** per append, in order: the offset (1-based, within its thread) of its first event */
  firstOffsets: number[];
}

/** What a lifecycle event does to its run row; undefined for the other events. */
function runStatusAfter(e: WorkflowEvent): RunStatus | undefined {
  switch (e.type) {
    case "run.accepted":
    case "workflow.started":
    case "workflow.resumed":
      return "running";
    case "workflow.suspended":
      return "waiting";
    case "workflow.completed":
      return "completed";
    case "workflow.failed":
      return "failed";
    case "workflow.cancelled":
      return "cancelled";
    default:
      return undefined;
  }
}

/** What an event does to threads.active_run_id: set it to its run, clear it, or nothing. */
function activeRunAfter(e: WorkflowEvent): "set" | "clear" | undefined {
  switch (e.type) {
    case "run.accepted":
    case "workflow.started":
    case "workflow.resumed":
      return "set";
    case "workflow.suspended":
    case "workflow.completed":
    case "workflow.failed":
    case "workflow.cancelled":
      return "clear";
    default:
      return undefined;
  }
}

interface ThreadAcc {
  count: number;
  status: ThreadStatus | null;
  touchActive: boolean;
  activeRunId: string | null;
  cancelGuard: boolean;
  fence: string | null;
  admit: Admission | null;
}

/** A cancel moves a thread only while a run is live there; after the run's end it is a no-op. */
export function cancelApplies(cancelStatus: ThreadStatus, current: ThreadStatus): boolean {
  if (cancelStatus === "CANCELLING") return current === "PENDING" || current === "RUNNING";
  if (cancelStatus === "CANCELLED") return current === "PENDING" || current === "RUNNING" || current === "CANCELLING";
  return true;
}

interface RunAcc {
  threadId: string;
  status: RunStatus;
  input: string | null;
}

export function planBatch(appends: readonly PendingAppend[]): BatchPlan {
  const threads = new Map<string, ThreadAcc>();
  const runs = new Map<string, RunAcc>();
  const events: BatchPlan["events"] = { threadIds: [], offsets: [], runIds: [], types: [], data: [] };
  const firstOffsets: number[] = [];

  for (const { threadId, events: list, fence, admit } of appends) {
    let t = threads.get(threadId);
    if (!t) {
      t = { count: 0, status: null, touchActive: false, activeRunId: null, cancelGuard: false, fence: null, admit: null };
      threads.set(threadId, t);
    }
    firstOffsets.push(t.count + 1);
    t.fence = fence ?? t.fence;
    t.admit = admit ?? t.admit;
    for (const e of list) {
      const runId = runIdOf(e);
      t.count += 1;
      events.threadIds.push(threadId);
      events.offsets.push(t.count);
      events.runIds.push(runId);
      events.types.push(e.type);
      events.data.push(JSON.stringify(e.data));

      const next = statusAfter(e);
      const isCancel = e.type === "workflow.cancelling" || e.type === "workflow.cancelled";
      let ignored = false;
      if (next && isCancel && t.status === null) {
        t.status = next;
        t.cancelGuard = true;
      } else if (next && isCancel) {
        ignored = !cancelApplies(next, t.status!);
        if (!ignored) t.status = next;
      } else if (next) {
        t.status = next;
        t.cancelGuard = false;
      }
      const active = ignored ? undefined : activeRunAfter(e);
      if (active) {
        t.touchActive = true;
        t.activeRunId = active === "set" ? runId : null;
      }
      const runStatus = runStatusAfter(e);
      if (runStatus && runId) {
        const r = runs.get(runId) ?? { threadId, status: runStatus, input: null };
        r.status = runStatus;
        if (e.type === "run.accepted") r.input = JSON.stringify(e.data);
        runs.set(runId, r);
      }
    }
  }

  const threadIds = [...threads.keys()].sort();
  const accs = threadIds.map((id) => threads.get(id)!);
  return {
    threads: {
      ids: threadIds,
      counts: accs.map((t) => t.count),
      statuses: accs.map((t) => t.status),
      touchActive: accs.map((t) => t.touchActive),
      activeRunIds: accs.map((t) => t.activeRunId),
      cancelGuards: accs.map((t) => t.cancelGuard),
      fences: accs.map((t) => t.fence),
      admitAgents: accs.map((t) => t.admit?.agentId ?? null),
      admitTenants: accs.map((t) => t.admit?.tenantId ?? null),
      admitOwners: accs.map((t) => t.admit?.owner ?? null),
      admitTtls: accs.map((t) => t.admit?.ttlMs ?? null),
      admitSeqs: accs.map((t) => t.admit?.expectedLastSeq ?? null),
    },
    events,
    runs: {
      ids: [...runs.keys()],
      threadIds: [...runs.values()].map((r) => r.threadId),
      statuses: [...runs.values()].map((r) => r.status),
      inputs: [...runs.values()].map((r) => r.input),
    },
    firstOffsets,
  };
}
