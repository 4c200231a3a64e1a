/**
 * The EventStore seam: everything the engine and the HTTP layer need from the database.
 * Two implementations share one set of numbered SQL migrations: Postgres (pg) and PGlite.
 */
import type { Checkpoint, FoldState } from "../../protocol/checkpoint.ts";
import type { StoredEvent, WorkflowEvent } from "../../protocol/events.ts";
import type { MergedDelta } from "../../protocol/merged-deltas.ts";
import type { RunStatus, ThreadStatus } from "../../protocol/lifecycle.ts";
import type { ThreadMetaChange } from "./sql/thread-listing.ts";
import type { RunStatusRow } from "./sql/run-status.ts";
import type { WebhookOutbox } from "./webhook-store.ts";
import type { ScheduleStore } from "./schedule-store.ts";
import type { MemoryStore } from "./memory-store.ts";

export type { ThreadMetaChange };

export interface ThreadRow {
  threadId: string;
  agentId: string;
  /** the tenant whose API key created the thread (server/tenant.ts) */
  tenantId: string;
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

export type DeleteOutcome = "deleted" | "not_found" | "busy";

export interface ListThreadsFilter {
  /** Only this tenant's threads (filtered in SQL). Omitted: every tenant's, unindexed. */
  tenantId?: string;
  agentId?: string;
  status?: ThreadStatus;
  limit?: number;
  /** opaque cursor from a previous page */
  before?: string;
  /** false (default): threads not archived; true: archived ones only; "all": both */
  archived?: boolean | "all";
  /** only threads whose title contains this text, case-insensitively */
  titleHas?: string;
}

/** A thread as the list shows it: the row, its title, whether it is archived or waits for a person. */
export interface ThreadListing extends ThreadRow {
  /** the title a person gave it, else the start of its first user message; null: neither */
  title: string | null;
  /** true when `title` is one a person gave (a rename), not derived */
  titleSet: boolean;
  /** ms since epoch; null: not archived */
  archivedAt: number | null;
  /** WAITING for an approval, a question's answer or a frontend tool's result (not just a message) */
  waitingForYou: boolean;
}

export interface ThreadPage {
  threads: ThreadListing[];
  next: string | null;
}

export interface ReadOptions {
  /** read events with seq > after (default 0: from the start) */
  after?: number;
  /** ...and seq < before (default: no bound) */
  before?: number;
  limit?: number;
}

export interface AppendOptions {
  /**
   * Fences the append: it commits only while this owner holds the thread's lease, and rejects
   * with LeaseLostError (writing nothing) otherwise. A run's executor fences all its writes; a
   * cancel or a signal from another instance does not.
   */
  leaseOwner?: string;
  /**
   * Admits a run (RunAdmission): the append commits only if the admission holds, and rejects with
   * AdmissionRefusedError (writing nothing) otherwise. Not combined with leaseOwner.
   */
  admit?: RunAdmission;
  /**
   * The reconstruction fold as of this append's last event (protocol/checkpoint.ts), stored in
   * the same commit as the thread's checkpoint: a run's end carries it.
   */
  checkpoint?: FoldState;
  /**
   * The checkpoint the fold was resumed from (Reconstructor.origin): the checkpoint is then
   * stored as a patch on it when that is smaller (server/store/checkpoint-part.ts).
   */
  checkpointBase?: Checkpoint;
  /**
   * The run's stretches of consecutive deltas, each merged into one event (protocol/merged-deltas.ts),
   * written in the same commit for catch-ups to read in place of those stretches. A run's end
   * carries them; a stretch whose events the log does not hold (yet) is not written.
   */
  compacted?: readonly MergedDelta[];
}

/**
 * What admits a run, checked against the thread's row in the commit that writes the run's first
 * events: the thread is still where the run's batch was built from (the same last_seq, so the same
 * status and history), it belongs to this agent, and nobody holds its lease. The lease is taken in
 * that same commit, and a thread that does not exist yet (expectedLastSeq 0) is created in it: the
 * thread row, the run row, the lease and the first events commit together or not at all.
 * Rejected: creating the thread, taking the lease and appending in three steps, which left a
 * thread PENDING forever with its lease held whenever the append was refused.
 */
export interface RunAdmission {
  agentId: string;
  /** the caller's tenant: a new thread becomes theirs; another tenant's thread refuses */
  tenantId: string;
  leaseOwner: string;
  ttlMs: number;
  expectedLastSeq: number;
}

/** What a run's admission reads about its thread, in one statement (EventStore.admissionView). */
export interface AdmissionView {
  /** any tenant's (the engine checks the tenant), or null when there is no such thread */
  thread: ThreadRow | null;
  /** the thread already has a run of this id (run ids name a run for good) */
  runTaken: boolean;
  checkpoint: Checkpoint | null;
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

/** How a Postgres store reaches its database, as found at start (postgres.ts, pool-mode.ts). */
export interface ConnectionReport {
  /** "transaction": the main URL is a transaction-mode pooler, which keeps no session */
  poolMode: "session" | "transaction";
  /** whether the mode was detected or declared (DATABASE_POOL_MODE) */
  poolModeFrom: "detected" | "declared";
  /**
   * How other instances' commits are heard: LISTEN on a session of the main URL, LISTEN on a
   * session of DATABASE_DIRECT_URL, or polling the threads' last_seq every pollIntervalMs.
   */
  doorbell: "listen" | "listen-direct" | "polling";
  pollIntervalMs?: number;
  /** the server's settings inside a statement of the main pool and of the lease pool, as it reports them */
  timeouts: { main: Record<string, string>; lease: Record<string, string> };
  /** something to fix, said for people (a direct URL that is itself a transaction pooler) */
  warning?: string;
}

/** One of a Postgres store's connection pools (postgres.ts); "app": a pool the application passed. */
export type PoolName = "main" | "lease" | "writer" | "app";

/** A pool's connections now, as pg.Pool counts them. */
export interface PoolStats {
  pool: PoolName;
  total: number;
  idle: number;
  /** statements waiting for a connection */
  waiting: number;
}

export interface EventStore {
  readonly kind: "postgres" | "pglite";
  /** Events per page when the log is read in pages (live.ts LOG_PAGE_SIZE, per backend). */
  readonly logPageSize: number;

  /**
   * Runs the numbered migrations; safe when several processes call it at once. The database is
   * opened first, once and without retry (Postgres: one connection within DB_CONNECT_TIMEOUT_MS;
   * PGlite: its directory checked and opened), so that a database that is not there, or refuses
   * the credentials, is reported at once and not after the retry bound.
   */
  migrate(): Promise<void>;

  /**
   * Creates the thread row for `tenantId` (default: the default tenant) if absent. Returns the
   * row and whether this call created it; rejects with ThreadNotOwnedError, writing nothing,
   * when the thread exists under another tenant.
   */
  ensureThread(threadId: string, agentId: string, tenantId?: string): Promise<{ thread: ThreadRow; created: boolean }>;

  /**
   * Appends events to one thread through the group-commit writer: resolves once they are
   * committed, with their sequence numbers (gapless per thread, even across processes).
   * A status change implied by an event (protocol/status.ts statusAfter) is committed in the
   * same transaction, and so are the run rows the lifecycle events imply.
   */
  append(threadId: string, events: WorkflowEvent[], opts?: AppendOptions): Promise<StoredEvent[]>;

  /** The thread, whether `runId` is taken in it, and its checkpoint: one read for an admission. */
  admissionView(threadId: string, runId: string): Promise<AdmissionView>;

  /** The thread's latest checkpoint, or null when none was written. */
  readCheckpoint(threadId: string): Promise<Checkpoint | null>;

  /** Where the thread's checkpoint stands (its seq), or null: a few bytes, not the fold. */
  checkpointSeq(threadId: string): Promise<number | null>;

  /** Events of a thread after a cursor, in order. */
  read(threadId: string, opts?: ReadOptions): Promise<StoredEvent[]>;

  /**
   * A page of a thread's events after a cursor: at most `limit` (default logPageSize) and
   * LOG_PAGE_BYTES of stored size (the first event always); `more` when it stopped at either
   * bound rather than at the end. What every reader of a whole thread reads with, so no one
   * statement grows with the thread's bytes.
   */
  readPage(threadId: string, opts: ReadOptions): Promise<{ events: StoredEvent[]; more: boolean }>;

  /**
   * The thread's compacted stretches (AppendOptions.compacted) that end after `after`, in log
   * order, at most `limit`: each stands for the log's events fromSeq..event.seq.
   */
  readCompacted(threadId: string, after: number, limit: number): Promise<MergedDelta[]>;

  /**
   * How many events have seq > after, and the last seq (`after` when none): whether the log after
   * a cursor is still gapless (count = lastSeq - after) without reading it.
   */
  countAfter(threadId: string, after: number): Promise<{ count: number; lastSeq: number }>;

  /**
   * Live subscription: yields batches of committed events with seq > after, in order, with no
   * gap and no duplicate, until the signal aborts. In-process appends wake it after commit;
   * on Postgres, appends by other processes wake it through a coalesced NOTIFY doorbell.
   */
  follow(threadId: string, after: number, signal: AbortSignal, opts?: FollowOptions): AsyncIterable<StoredEvent[]>;

  /** Followers (follow() loops) of this store that are subscribed now: what a disconnect must free. */
  followerCount(): number;

  /**
   * When this process's writer committed `event` (Date.now() after the commit), for an event
   * follow() handed over in process; undefined for one read from the log (another instance's,
   * or read again by a follower that fell behind), whose commit time only `at` tells.
   */
  committedHereAt(event: StoredEvent): number | undefined;

  /**
   * With `tenantId`, only that tenant's thread: another tenant's answers null, as an unknown
   * one does. Without, any tenant's (the engine's own access, after a route checked the tenant).
   */
  getThread(threadId: string, tenantId?: string): Promise<ThreadRow | null>;
  /** getThread with what the list shows besides the row (title, archived, waiting for a person); the thread view answers it. */
  getThreadListing(threadId: string, tenantId?: string): Promise<ThreadListing | null>;
  listThreads(filter?: ListThreadsFilter): Promise<ThreadPage>;
  /**
   * Renames and/or archives a thread (title null: back to the derived one); returns it as the
   * list shows it, or null when there is no such thread (for `tenantId`, when given).
   */
  updateThread(threadId: string, change: ThreadMetaChange, tenantId?: string): Promise<ThreadListing | null>;
  /**
   * Deletes a thread with its events and runs, unless a run is active on it or queued behind it
   * ("busy": nothing is deleted). The check and the delete are one statement, so a run being
   * admitted meanwhile either comes first (busy) or finds no thread (and creates it anew). With
   * `tenantId`, only that tenant's thread: another tenant's is "not_found".
   */
  deleteThread(threadId: string, tenantId?: string): Promise<DeleteOutcome>;

  /** Runs queued behind an active run, over every thread (a metric: it spans threads). */
  countQueuedRuns(): Promise<number>;

  /** A run of a thread; run ids are the client's and unique only within their thread. */
  getRun(threadId: string, runId: string): Promise<RunRow | null>;
  /**
   * The newest admission of the client's run `runId` (protocol/run-ids.ts), with its failure and
   * its webhook delivery: what GET .../runs/:runId answers. Null when the thread has no such run.
   */
  runStatus(threadId: string, runId: string): Promise<RunStatusRow | null>;
  /** The webhook outbox of run ends (docs/webhooks.md), written in the commit of each end. */
  readonly webhooks: WebhookOutbox;
  /** Schedules and the ticks they fired (docs/schedules.md). */
  readonly schedules: ScheduleStore;
  /** Memory across threads, per tenant (docs/memory.md). */
  readonly memory: MemoryStore;
  /**
   * Records a run waiting behind the thread's active one (double-texting policy "enqueue").
   * False, writing nothing, when the thread already has a run of that id.
   */
  enqueueRun(threadId: string, runId: string, input: unknown): Promise<boolean>;
  /** The oldest queued run of a thread, if any. */
  nextQueuedRun(threadId: string): Promise<RunRow | null>;

  // ---- leases: the instance executing a thread's run holds it and heartbeats it ----

  /** Takes the lease if nobody holds it or it expired. True when `leaseOwner` now holds it. */
  acquireLease(threadId: string, leaseOwner: string, ttlMs: number): Promise<boolean>;
  /**
   * Extends the leases `leaseOwner` holds on these threads; returns the ids it still holds. On
   * shards, one statement per shard: when some failed and others answered, rejects with
   * HeartbeatMissedError, which says which were renewed and which missed the beat.
   */
  heartbeat(leaseOwner: string, threadIds: string[], ttlMs: number): Promise<string[]>;
  releaseLease(threadId: string, leaseOwner: string): Promise<void>;
  /** Frees every lease `leaseOwner` holds (claimable at once); returns those threads' ids. */
  releaseAllLeases(leaseOwner: string): Promise<string[]>;
  /**
   * Claims up to `limit` active threads (PENDING/RUNNING/CANCELLING) with an active run whose
   * lease expired (or was never taken), with FOR UPDATE SKIP LOCKED so that two instances never
   * claim the same one. A thread without an active run has nothing to recover and is skipped, and
   * so is one in `executingHere` (the claimer's own running threads, sql/leases.ts).
   */
  claimExpired(leaseOwner: string, ttlMs: number, limit: number, executingHere?: readonly string[]): Promise<ThreadRow[]>;

  /**
   * Deletes stream-level events of runs that are waiting or ended, and whose run row was last
   * updated more than `olderThanMs` ago by the database clock (retention: an age, not a date).
   * Returns how many events were deleted.
   */
  compact(olderThanMs: number): Promise<number>;

  /** Readiness: the database answers and migrations are applied. */
  ping(): Promise<void>;

  /** Postgres: how this store reaches the database (pooler mode, doorbell, effective bounds), for the start-up log. */
  connections?(): Promise<ConnectionReport>;

  /** Postgres: the connection pools now (metrics); PGlite has none. */
  poolStats?(): PoolStats[];

  close(): Promise<void>;
}
