/**
 * The group-commit writer. append() queues its events and waits. When no commit is in flight, a
 * flush starts at once (after the current tick, so that appends made together go together);
 * while one is, appends gather and the next flush takes all of them (up to `maxFlushEvents`).
 * A flush (flush.ts) writes in ONE transaction with ONE multi-row INSERT, whatever the number of
 * threads. Rejected: a fixed wait before each flush to gather more, which every token paid as
 * latency while the database sat idle; gathering during the commit in flight batches just as well
 * under load and costs nothing when idle.
 *
 * An append resolves once its batch committed, or rejects: ThreadNotFoundError for a thread that
 * does not exist (the rest of the batch is written), DatabaseUnavailableError when the database
 * could not be reached, AppendError with the database error as `cause` otherwise. Transient errors are retried with backoff first. When a batch fails on its
 * data (one append carrying, say, a \u0000 that jsonb refuses), its appends are written one by
 * one, so that one bad append does not fail the others.
 */
import type { StoredEvent, WorkflowEvent } from "../../protocol/events.ts";
import type { Db, Statement } from "./db.ts";
import { AppendError, DatabaseUnavailableError, StoreClosedError } from "./errors.ts";
import { flush, type QueuedAppend } from "./flush.ts";
import type { RetryOptions } from "./retry.ts";
import type { Checkpoint, FoldState } from "../../protocol/checkpoint.ts";
import type { MergedDelta } from "../../protocol/merged-deltas.ts";
import type { RunEnd } from "./sql/webhook-outbox.ts";
import type { RunAdmission } from "./types.ts";

export interface WriterOptions {
  /**
   * Cap on the events of one flush (default 2048). A flush takes everything queued up to it:
   * under a backlog, batches grow, which spreads the fixed cost of a commit (BEGIN, NOTIFY,
   * COMMIT and its fsync: about 4 ms here, as much as 350 rows) over more events.
   */
  maxFlushEvents?: number;
  retry?: RetryOptions;
  /** observes every committed or failed flush (metrics); must not throw */
  onFlush?: (flush: FlushInfo) => void;
  /** a failure no append owns (a bug in the writer itself); logged, never thrown */
  onError?: (err: Error) => void;
  /**
   * When a flush starts after the first append that finds the writer idle (default: a microtask,
   * after the current tick). PGlite passes setImmediate (pglite.ts): its commit is this
   * process's own CPU, not a wait on a socket, so nothing gathers while it runs, and a flush per
   * tick was a flush per upstream chunk read.
   */
  schedule?: (kick: () => void) => void;
}

export interface FlushInfo {
  appends: number;
  events: number;
  threads: number;
  /** time from BEGIN to COMMIT (retries included) */
  ms: number;
  ok: boolean;
}

export interface WriterDeps {
  db: Db;
  /** quoted schema identifier */
  s: string;
  /** the last statement of every flush transaction, naming the threads it writes (the doorbell) */
  doorbell?: (threadIds: readonly string[]) => Statement;
  /** a statement of the flush transaction for the runs the batch ends (the webhook outbox), after the append */
  runEnds?: (ends: readonly RunEnd[]) => Statement;
  /** runs after commit, with the committed events by thread in seq order (this process's followers) */
  afterCommit: (committed: ReadonlyMap<string, readonly StoredEvent[]>) => void;
  /**
   * A batch split into the batches that each touch one shard (shards.ts), flushed one after
   * another; absent: the whole batch is one flush (one node).
   */
  split?: (batch: QueuedAppend[]) => Promise<QueuedAppend[][]>;
  /** the time a flush stamps (ms), where the database's now() cannot be used (Citus: sql/events.ts appendBatch) */
  clock?: () => number | undefined;
}

export interface WriterAppendOptions {
  leaseOwner?: string;
  admit?: RunAdmission;
  checkpoint?: FoldState;
  checkpointBase?: Checkpoint;
  compacted?: readonly MergedDelta[];
}

export interface Writer {
  append(threadId: string, events: WorkflowEvent[], opts?: WriterAppendOptions): Promise<StoredEvent[]>;
  /** flushes what is queued, then refuses further appends */
  close(): Promise<void>;
}

export function createWriter(deps: WriterDeps, opts: WriterOptions = {}): Writer {
  const maxFlush = Math.max(1, opts.maxFlushEvents ?? 2048);
  const schedule = opts.schedule ?? queueMicrotask;
  const queue: QueuedAppend[] = [];
  let scheduled = false;
  let flushing: Promise<void> | undefined;
  let closed = false;

  function kick(): void {
    scheduled = false;
    // A running flush loops until the queue is empty: it takes these appends too.
    if (flushing || queue.length === 0) return;
    flushing = drain().finally(() => {
      flushing = undefined;
      if (queue.length > 0) kick();
    });
  }

  /**
   * Runs from a microtask, where nobody awaits it: every failure must end in the appends it concerns.
   * flush() settles its batch's appends itself; a throw that escapes it anyway (a bug) rejects
   * the batch it was given, so that no caller waits forever and the process goes on.
   */
  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = takeBatch(queue, maxFlush);
      let parts: QueuedAppend[][];
      try {
        parts = deps.split ? await deps.split(batch) : [batch];
      } catch (err) {
        // The shard lookup failed (retried already): the database is what failed, not the appends.
        const error = err instanceof Error ? err : new Error(String(err));
        for (const a of batch) a.reject(error instanceof DatabaseUnavailableError ? error : new AppendError(a.threadId, a.events.length, error));
        continue;
      }
      for (const part of parts) {
        try {
          await flush(deps, opts, part);
        } catch (err) {
          const error = err instanceof Error ? err : new Error(String(err));
          opts.onError?.(error);
          for (const a of part) a.reject(new AppendError(a.threadId, a.events.length, error));
        }
      }
    }
  }

  return {
    append(threadId, events, opts) {
      if (closed) return Promise.reject(new StoreClosedError());
      if (events.length === 0) return Promise.resolve([]);
      return new Promise<StoredEvent[]>((resolve, reject) => {
        // The options set, and only those, as properties of the one object queued: an append is
        // a token, and a spread of a temporary object per option showed in the allocation
        // profile (docs/performance.md, "The hops a token takes").
        const queued: QueuedAppend = { threadId, events, resolve, reject };
        if (opts !== undefined) {
          if (opts.leaseOwner !== undefined) queued.leaseOwner = opts.leaseOwner;
          if (opts.admit) queued.admit = opts.admit;
          if (opts.checkpoint) queued.checkpoint = opts.checkpoint;
          if (opts.checkpointBase) queued.checkpointBase = opts.checkpointBase;
          if (opts.compacted?.length) queued.compacted = opts.compacted;
        }
        queue.push(queued);
        if (!flushing && !scheduled) {
          scheduled = true;
          schedule(kick);
        }
      });
    },

    async close() {
      closed = true;
      kick();
      while (flushing) await flushing;
    },
  };
}

/**
 * Takes whole appends off `queue`, in order, up to `maxFlush` events (at least one append). A
 * batch never holds two appends of one thread with different lease owners, nor an admission with
 * another append of its thread: an admission is checked against the thread as it was before the
 * batch. Such an append stays queued for the next flush, and so does every later append of its
 * thread (each thread's order is kept); the other threads' appends behind it still go now.
 * Rejected: ending the batch at the first such append, which made one thread's race (two starts
 * at once) split a burst of admissions of other threads into two commits.
 */
function takeBatch(queue: QueuedAppend[], maxFlush: number): QueuedAppend[] {
  let n = 0;
  const taken: QueuedAppend[] = [];
  const kept: QueuedAppend[] = [];
  const leaseOwners = new Map<string, string | undefined>();
  const admitted = new Set<string>();
  const held = new Set<string>();
  let i = 0;
  for (; i < queue.length; i++) {
    const a = queue[i]!;
    if (taken.length > 0 && n + a.events.length > maxFlush) break;
    const conflicts =
      held.has(a.threadId) ||
      (leaseOwners.has(a.threadId) && (leaseOwners.get(a.threadId) !== a.leaseOwner || a.admit !== undefined || admitted.has(a.threadId)));
    if (conflicts) {
      held.add(a.threadId);
      kept.push(a);
      continue;
    }
    leaseOwners.set(a.threadId, a.leaseOwner);
    if (a.admit) admitted.add(a.threadId);
    n += a.events.length;
    taken.push(a);
  }
  queue.splice(0, i, ...kept);
  return taken;
}
