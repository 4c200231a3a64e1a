/**
 * The EventStore seam: everything the engine and the HTTP layer need from the database.
 * Two implementations share one set of numbered SQL migrations: Postgres (pg) and PGlite.
 */
import type { StoredEvent, WorkflowEvent } from "../../protocol/events.ts";
import type { RunStatus, ThreadStatus } from "../../protocol/lifecycle.ts";

export interface ThreadRow {
  threadId: string;
  agentId: string;
  status: ThreadStatus;
  lastSeq: number;
  activeRunId: string | null;
  leaseOwner: string | null;
  /** ms since epoch, or null when nobody holds the thread */
  leaseExpiresAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export type { RunStatus } from "../../protocol/lifecycle.ts";

export interface RunRow {
  runId: string;
  threadId: string;
  status: RunStatus;
  /** the run's input as accepted (RunAgentInput), kept for queued runs and for recovery */
  input: unknown;
  createdAt: number;
  updatedAt: number;
}

export interface ListThreadsFilter {
  agentId?: string;
  status?: ThreadStatus;
  limit?: number;
  /** opaque cursor from a previous page */
  before?: string;
}

export interface ThreadPage {
  threads: ThreadRow[];
  next: string | null;
}

export interface ReadOptions {
  /** read events with seq > after (default 0: from the start) */
  after?: number;
  limit?: number;
}

export interface AppendOptions {
  /**
   * Fences the append: it commits only while this owner holds the thread's lease, and rejects
   * with LeaseLostError (writing nothing) otherwise. A run's executor fences all its writes; a
   * cancel or a signal from another instance does not.
   */
  leaseOwner?: string;
}

export interface FollowOptions {
  /**
   * Wake only for appends committed by other processes (their NOTIFY doorbell), not this
   * process's own. For a run's executor watching its thread for cancel and steering requests
   * from other instances: its own appends (one flush per few tokens) never need reading back,
   * and requests made in this process reach it directly.
   */
  foreignOnly?: boolean;
}

export interface EventStore {
  readonly kind: "postgres" | "pglite";

  /** Runs the numbered migrations; safe when several processes call it at once. */
  migrate(): Promise<void>;

  /** Creates the thread row if absent. Returns the row and whether this call created it. */
  ensureThread(threadId: string, agentId: string): Promise<{ thread: ThreadRow; created: boolean }>;

  /**
   * Appends events to one thread through the group-commit writer: resolves once they are
   * committed, with their sequence numbers (gapless per thread, even across processes).
   * A status change implied by an event (protocol/status.ts statusAfter) is committed in the
   * same transaction, and so are the run rows the lifecycle events imply.
   */
  append(threadId: string, events: WorkflowEvent[], opts?: AppendOptions): Promise<StoredEvent[]>;

  /** Events of a thread after a cursor, in order. */
  read(threadId: string, opts?: ReadOptions): Promise<StoredEvent[]>;

  /**
   * Live subscription: yields batches of committed events with seq > after, in order, with no
   * gap and no duplicate, until the signal aborts. In-process appends wake it after commit;
   * on Postgres, appends by other processes wake it through a coalesced NOTIFY doorbell.
   */
  follow(threadId: string, after: number, signal: AbortSignal, opts?: FollowOptions): AsyncIterable<StoredEvent[]>;

  getThread(threadId: string): Promise<ThreadRow | null>;
  listThreads(filter?: ListThreadsFilter): Promise<ThreadPage>;
  deleteThread(threadId: string): Promise<boolean>;

  getRun(runId: string): Promise<RunRow | null>;
  /** Records a run waiting behind the thread's active one (double-texting policy "enqueue"). */
  enqueueRun(threadId: string, runId: string, input: unknown): Promise<void>;
  /** The oldest queued run of a thread, if any. */
  nextQueuedRun(threadId: string): Promise<RunRow | null>;

  // ---- leases: the instance executing a thread's run holds it and heartbeats it ----

  /** Takes the lease if nobody holds it or it expired. True when `owner` now holds it. */
  acquireLease(threadId: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Extends the leases `owner` holds on these threads; returns the ids it still holds. */
  heartbeat(owner: string, threadIds: string[], ttlMs: number): Promise<string[]>;
  releaseLease(threadId: string, owner: string): Promise<void>;
  /**
   * Claims up to `limit` active threads (PENDING/RUNNING/CANCELLING) with an active run whose
   * lease expired (or was never taken), with FOR UPDATE SKIP LOCKED so that two instances never
   * claim the same one. A thread without an active run has nothing to recover and is skipped.
   */
  claimExpired(owner: string, ttlMs: number, limit: number): Promise<ThreadRow[]>;

  /**
   * Deletes stream-level events of runs that are waiting or ended, and whose run row was last
   * updated more than `olderThanMs` ago by the database clock (retention: an age, not a date).
   * Returns how many events were deleted.
   */
  compact(olderThanMs: number): Promise<number>;

  /** Readiness: the database answers and migrations are applied. */
  ping(): Promise<void>;

  close(): Promise<void>;
}
