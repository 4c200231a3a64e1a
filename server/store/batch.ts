/**
 * Turns a batch of queued appends into the column arrays of one INSERT (sql/events.ts
 * appendBatch). Pure: no I/O, so that what a flush writes can be read and tested on its own.
 *
 * Per thread it works out how many sequence numbers to allocate, the status the thread ends in
 * (the last status-moving event wins) and what happens to its active run; per run, the status its
 * lifecycle events leave it in. What each event does is protocol/lifecycle.ts's, not restated.
 *
 * The transition table is enforced here: a batch whose events would move a thread from a status
 * it knows (an earlier event of the batch) to one the table forbids throws IllegalTransitionError,
 * naming both. The first move of each thread in a batch starts from the row's status, which only
 * the database knows; for cancels the SQL guard checks it there (sql/lifecycle.ts).
 */
import { isStreamEvent, runIdOf, type WorkflowEvent } from "../../protocol/events.ts";
import {
  activeRunAfter,
  assertLegalSequence,
  runStatusAfter,
  step,
  type RunStatus,
  type ThreadStatus,
  type Walk,
} from "../../protocol/lifecycle.ts";
import type { Checkpoint, FoldState } from "../../protocol/checkpoint.ts";
import type { MergedDelta } from "../../protocol/merged-deltas.ts";
import { checkpointPart, type CheckpointPart } from "./checkpoint-part.ts";
import type { RunAdmission } from "./types.ts";

export interface PendingAppend {
  threadId: string;
  events: readonly WorkflowEvent[];
  /** Commit only while this owner holds the thread's lease (EventStore.append's `leaseOwner`). */
  leaseOwner?: string;
  /** A run's admission (AppendOptions.admit). Never shares a batch with its thread's other appends. */
  admit?: RunAdmission;
  /** The fold as of this append's last event (AppendOptions.checkpoint). */
  checkpoint?: FoldState;
  /** The checkpoint the fold was resumed from (AppendOptions.checkpointBase). */
  checkpointBase?: Checkpoint;
  /** The run's merged stretches, written beside the batch (AppendOptions.compacted). */
  compacted?: readonly MergedDelta[];
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
    leaseOwners: (string | null)[];
    /** The admission of the thread's append, as columns (null where the append admits no run). */
    admitAgents: (string | null)[];
    admitTenants: (string | null)[];
    admitLeaseOwners: (string | null)[];
    admitTtls: (number | null)[];
    admitSeqs: (number | null)[];
    /** The checkpoint the batch writes for the thread (JSON), as of its last event, or null. */
    checkpoints: (string | null)[];
    /** ...the seq of the part it patches (null: a full fold or none), and its size. */
    checkpointBases: (number | null)[];
    checkpointBytes: (number | null)[];
    /**
     * Whether the batch is activity the thread list orders by (updated_at): any event but a
     * stream-level one (protocol/events.ts STREAM_EVENT_TYPES). A flush of tokens alone leaves
     * updated_at, and with it every indexed column, as it was: Postgres then rewrites the row
     * in place (a heap-only update), with no new index entries and no dead ones to vacuum.
     */
    touched: boolean[];
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

interface ThreadAcc extends Walk {
  count: number;
  touchActive: boolean;
  activeRunId: string | null;
  leaseOwner: string | null;
  admit: RunAdmission | null;
  checkpoint: CheckpointPart | null;
  touched: boolean;
}

interface RunAcc {
  runId: string;
  threadId: string;
  status: RunStatus;
  input: string | null;
}

/**
 * Checks one append on its own before it is queued: an illegal sequence is refused to its caller
 * alone, with nothing written, instead of failing the batch it would have joined.
 */
export function assertLegalAppend(threadId: string, events: readonly WorkflowEvent[]): void {
  assertLegalSequence(events, threadId);
}

export function planBatch(appends: readonly PendingAppend[]): BatchPlan {
  const threads = new Map<string, ThreadAcc>();
  const runs = new Map<string, RunAcc>();
  const events: BatchPlan["events"] = { threadIds: [], offsets: [], runIds: [], types: [], data: [] };
  const firstOffsets: number[] = [];

  for (const { threadId, events: list, leaseOwner, admit, checkpoint, checkpointBase } of appends) {
    let t = threads.get(threadId);
    if (!t) {
      t = { count: 0, status: null, touchActive: false, activeRunId: null, cancelGuard: false, leaseOwner: null, admit: null, checkpoint: null, touched: false };
      threads.set(threadId, t);
    }
    // A later append of the thread in this batch moves the log past the checkpoint: it is
    // written only when it stands for the batch's last event of the thread.
    t.checkpoint = checkpoint ? checkpointPart(checkpoint, checkpointBase) : null;
    firstOffsets.push(t.count + 1);
    t.leaseOwner = leaseOwner ?? t.leaseOwner;
    t.admit = admit ?? t.admit;
    for (const e of list) planEvent(threadId, t, runs, events, e);
  }

  return { threads: threadColumns(threads), events, runs: runColumns(runs), firstOffsets };
}

/** One event: its row's columns, and what it does to its thread's and its run's accumulators. */
function planEvent(threadId: string, t: ThreadAcc, runs: Map<string, RunAcc>, events: BatchPlan["events"], e: WorkflowEvent): void {
  const runId = runIdOf(e);
  t.count += 1;
  events.threadIds.push(threadId);
  events.offsets.push(t.count);
  events.runIds.push(runId);
  events.types.push(e.type);
  events.data.push(JSON.stringify(e.data));
  if (!t.touched && !isStreamEvent(e)) t.touched = true;

  const { ignored } = step(t, e, threadId);
  const active = ignored ? undefined : activeRunAfter(e);
  if (active) {
    t.touchActive = true;
    t.activeRunId = active === "set" ? runId : null;
  }
  const runStatus = ignored ? undefined : runStatusAfter(e);
  if (runStatus && runId) {
    // Keyed by thread and run: run ids are per thread, and two threads of one batch (a burst of
    // admissions from clients that number their runs alike) may each have a run "1".
    const key = `${threadId}\u0000${runId}`;
    const r = runs.get(key) ?? { runId, threadId, status: runStatus, input: null };
    r.status = runStatus;
    if (e.type === "run.accepted") r.input = JSON.stringify(e.data);
    runs.set(key, r);
  }
}

/** The threads as columns, sorted by id: the order in which their rows are locked. */
function threadColumns(threads: ReadonlyMap<string, ThreadAcc>): BatchPlan["threads"] {
  const ids = [...threads.keys()].sort();
  const accs = ids.map((id) => threads.get(id)!);
  return {
    ids,
    counts: accs.map((t) => t.count),
    statuses: accs.map((t) => t.status),
    touchActive: accs.map((t) => t.touchActive),
    activeRunIds: accs.map((t) => t.activeRunId),
    cancelGuards: accs.map((t) => t.cancelGuard),
    leaseOwners: accs.map((t) => t.leaseOwner),
    admitAgents: accs.map((t) => t.admit?.agentId ?? null),
    admitTenants: accs.map((t) => t.admit?.tenantId ?? null),
    admitLeaseOwners: accs.map((t) => t.admit?.leaseOwner ?? null),
    admitTtls: accs.map((t) => t.admit?.ttlMs ?? null),
    admitSeqs: accs.map((t) => t.admit?.expectedLastSeq ?? null),
    checkpoints: accs.map((t) => t.checkpoint?.text ?? null),
    checkpointBases: accs.map((t) => t.checkpoint?.baseSeq ?? null),
    checkpointBytes: accs.map((t) => t.checkpoint?.bytes ?? null),
    touched: accs.map((t) => t.touched),
  };
}

function runColumns(runs: ReadonlyMap<string, RunAcc>): BatchPlan["runs"] {
  const list = [...runs.values()];
  return {
    ids: list.map((r) => r.runId),
    threadIds: list.map((r) => r.threadId),
    statuses: list.map((r) => r.status),
    inputs: list.map((r) => r.input),
  };
}
