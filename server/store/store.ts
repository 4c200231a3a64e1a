/**
 * The EventStore, assembled from its parts: the same code for both backends, which differ only
 * in how they provide a Db (db.ts) and hear the doorbell (listener.ts).
 */
import { randomUUID } from "node:crypto";
import { DEFAULT_TENANT } from "../tenant.ts";
import { assertLegalAppend } from "./batch.ts";
import type { Db } from "./db.ts";
import type { DistributeSetting } from "./distribution.ts";
import { HeartbeatMissedError, InvalidCursorError, ThreadNotFoundError, ThreadNotOwnedError } from "./errors.ts";
import type { DoorbellListener } from "./listener.ts";
import type { LongMigrationDb } from "./long-migration.ts";
import { follow, LiveFeed, LOG_PAGE_BYTES, LOG_PAGE_SIZE } from "./live.ts";
import { assertMigrated, migrate } from "./migrate.ts";
import { classifyDbError, guardDb, withinWait } from "./availability.ts";
import { DEFAULT_RETRY_MAX_MS, sqlStateOf, withRetry, type RetryOptions } from "./retry.ts";
import type { SchemaNames } from "./schema.ts";
import { decodeDoorbell, encodeDoorbell, ringDoorbell } from "./sql/doorbell.ts";
import { selectAdmissionViews, type AdmissionKey, type AdmissionViewRow } from "./sql/admission-view.ts";
import { gatheredReads } from "./gathered-reads.ts";
import { selectCheckpoint, selectCheckpointSeq } from "./sql/checkpoints.ts";
import { readCompacted } from "./sql/compacted.ts";
import { countEventsAfter, readEvents, readEventsPage } from "./sql/events.ts";
import { acquireLease, claimExpiredLease, heartbeatLeases, releaseLease, releaseLeases, selectExpiredLeases, selectLeasedThreads } from "./sql/leases.ts";
import { selectRunStatus } from "./sql/run-status.ts";
import { insertWebhookDeliveries } from "./sql/webhook-outbox.ts";
import { webhookOutbox } from "./webhook-store.ts";
import { scheduleStore } from "./schedule-store.ts";
import { memoryStore } from "./memory-store.ts";
import { countQueuedRuns, insertQueuedRun, selectNextQueuedRun, selectRun } from "./sql/runs.ts";
import { deleteThread, insertThread, selectLastSeqs, selectThread, type ThreadKey } from "./sql/threads.ts";
import { selectThreadListing, selectThreadPage, updateThreadMeta } from "./sql/thread-listing.ts";
import { encodeThreadCursor, ThreadCursorSchema } from "./thread-cursor.ts";
import type { AdmissionView, ConnectionReport, EventStore, PoolName, PoolStats, ThreadRow } from "./types.ts";
import { inlinedWhen } from "./inline-params.ts";
import { schemaShards } from "./shards.ts";
import { compactStreamEvents } from "./compaction.ts";
import { createWriter, type WriterOptions } from "./writer.ts";

/** Options both backends accept. */
export interface CommonStoreOptions {
  /** Postgres schema holding the store's tables (default "threadline") */
  schema?: string;
  /** DATABASE_DISTRIBUTE: on a database with Citus, "auto" (default) distributes the tables at migrate() (distribution.ts) */
  distribute?: DistributeSetting;
  writer?: WriterOptions;
  /** retries of transient errors, for the writer and single statements */
  retry?: RetryOptions;
  /** background failures (the doorbell connection); the store keeps going after them */
  onError?: (err: Error) => void;
  /**
   * Wraps the database seam every statement goes through (the LISTEN connection aside): for
   * tracing, or counting statements per run in tests.
   */
  instrument?: (db: Db) => Db;
  /** Postgres: how long each statement or transaction waited for a pooled connection (metrics). */
  onPoolWait?: (pool: PoolName, waitedMs: number) => void;
}

export interface DoorbellHandlers {
  onPayload: (payload: string) => void;
  onReconnect: () => void;
  /** the threads followed in this process now (what a polling doorbell asks about) */
  followed: () => string[];
  /** last_seq of these threads, one statement (a polling doorbell's question) */
  lastSeqs: (threadIds: readonly string[]) => Promise<ReadonlyMap<string, number>>;
  /** a followed thread's log moved to lastSeq (undefined: deleted), as a polling doorbell saw it */
  onChanged: (threadId: string, lastSeq: number | undefined) => void;
}

export interface StoreParts {
  kind: EventStore["kind"];
  db: Db;
  /** where the lease statements run (default: db); Postgres gives them a pool of their own */
  leaseDb?: Db;
  /** where migrations run (default: db); Postgres gives them a connection with the migration bounds (migration-bounds.ts) */
  migrationDb?: Db;
  schema: SchemaNames;
  distribute?: DistributeSetting;
  listener: (handlers: DoorbellHandlers) => DoorbellListener;
  writer?: WriterOptions;
  retry?: RetryOptions;
  /**
   * How long a read waits for a database that does not answer before it rejects with
   * DatabaseUnavailableError, retries included (Postgres: the pool-acquire bound,
   * DB_CONNECT_TIMEOUT_MS). A request answers 503 then rather than after the whole retry bound.
   * Absent (PGlite, in this process): no such wait.
   */
  readWaitMs?: number;
  /** where the migrations that declare themselves long run (long-migration.ts) */
  long: LongMigrationDb;
  /** how the backend reaches the database: pooler mode, doorbell, effective bounds (Postgres) */
  connections?: () => Promise<ConnectionReport>;
  /**
   * The first contact with the database, not retried: what migrate() does before anything else.
   * Rejected: letting the first migration statement open it, under the retry of transient
   * errors, where a refused connection (nothing listening, a wrong port) is retried for the
   * whole DB_RETRY_MAX_MS before anyone hears of it.
   */
  open?: () => Promise<void>;
  /** the backend's connection pools now (Postgres) */
  poolStats?: () => PoolStats[];
}

const DEFAULT_PAGE = 50;
const MAX_PAGE = 500;
const FOREIGN_KEY_VIOLATION = "23503";
/**
 * Admission reads gathered into one statement at most (gathered-reads.ts): a burst larger waits
 * for the statement before it. Each view carries its thread's checkpoint (a fold of a few KiB),
 * so this bounds one answer to a few MiB.
 */
export const ADMISSION_READS_PER_STATEMENT = 500;
/**
 * The largest checkpoint an admission's statement carries (sql/checkpoints.ts
 * checkpointColumnsSql): 256 KiB, a millisecond or two of parsing, the conversation of nearly
 * every thread. A larger one is read after it in parts of at most LOG_PAGE_BYTES, each its own
 * statement with a turn of the loop between (selectCheckpoint), as every other reader of it does.
 */
export const ADMISSION_CHECKPOINT_INLINE_BYTES = 256 * 1024;

export function createEventStore(parts: StoreParts): EventStore {
  const { schema } = parts;
  // Every statement of the store, the writer's and the leases' included, passes the one guard.
  const guarded = guardDb(parts.db);
  // On Citus shards, statements carry their values as literals (inline-params.ts) and group
  // their threads by shard (shards.ts); on one node, neither.
  const shards = schemaShards(guarded, schema);
  const onShards = () => shards.distributed;
  const db = inlinedWhen(guarded, onShards);
  const leaseDb = parts.leaseDb ? inlinedWhen(guardDb(parts.leaseDb), onShards) : db;
  const byShard = (threadIds: readonly string[]) => retry(() => shards.group(threadIds, (id) => id));
  const migrationDb = parts.migrationDb ? inlinedWhen(guardDb(parts.migrationDb), onShards) : db;
  const s = schema.ident;
  const instanceId = randomUUID();
  const feed = new LiveFeed();
  /** Rung only by other processes' appends (FollowOptions.foreignOnly): nothing is handed to it. */
  const foreignFeed = new LiveFeed();
  const retry = <T>(fn: () => Promise<T>) => withRetry(fn, parts.retry);
  // Reads (what requests wait on) retry only within readWaitMs and give up on a silent socket
  // then too. Writes keep the whole retry bound: a run in flight pauses through an outage that
  // short, and a write cannot be abandoned without maybe committing later.
  const waitMs = parts.readWaitMs;
  const readRetry =
    waitMs === undefined
      ? retry
      : <T>(fn: () => Promise<T>) =>
          withinWait(withRetry(fn, { ...parts.retry, maxElapsedMs: Math.min(parts.retry?.maxElapsedMs ?? DEFAULT_RETRY_MAX_MS, waitMs) }), waitMs);
  let closed = false;

  const listener = parts.listener({
    onPayload(payload) {
      const ring = decodeDoorbell(payload);
      if (ring.from === instanceId) return; // this process woke its followers at commit
      for (const h of [feed, foreignFeed]) {
        if (ring.threads === "*") h.wakeAll();
        else h.wake(ring.threads);
      }
    },
    onReconnect: () => {
      feed.wakeAll();
      foreignFeed.wakeAll();
    },
    followed: () => [...feed.threadIds(), ...foreignFeed.threadIds()],
    lastSeqs: (threadIds) => selectLastSeqs(db, s, threadIds),
    onChanged(threadId, lastSeq) {
      // The foreign-only followers cannot tell this process's commits from others' here: they
      // read. The others skip a log that ends where this process's last hand-over did: had
      // another process committed before that hand-over, its seqs left a gap there, and a gap
      // makes the follower read (live.ts continuing()).
      foreignFeed.wake([threadId]);
      if (lastSeq === undefined || feed.head(threadId) !== lastSeq) feed.wake([threadId]);
    },
  });

  const webhooks = webhookOutbox(db, s, retry);
  const writer = createWriter(
    {
      db,
      s,
      runEnds: (ends) => insertWebhookDeliveries(s, ends, webhooks.targets()),
      doorbell: (threadIds) => ringDoorbell(schema.channel, encodeDoorbell(instanceId, threadIds)),
      afterCommit: (committed) => feed.publish(committed),
      split: (batch) => retry(() => shards.group(batch, (a) => a.threadId)),
      clock: () => (shards.distributed ? Date.now() : undefined),
    },
    { ...parts.writer, retry: parts.writer?.retry ?? parts.retry },
  );

  const read = (threadId: string, after: number, limit: number) =>
    readRetry(() => readEventsPage(db, s, threadId, after, limit, LOG_PAGE_BYTES));

  const admissionViews = gatheredReads<AdmissionKey, AdmissionViewRow>(
    (keys) => readRetry(() => selectAdmissionViews(db, s, keys, ADMISSION_CHECKPOINT_INLINE_BYTES)),
    ADMISSION_READS_PER_STATEMENT,
  );
  const readCheckpoint = (threadId: string) => selectCheckpoint(db, s, threadId, { each: readRetry, maxBytes: LOG_PAGE_BYTES });

  return {
    kind: parts.kind,
    logPageSize: LOG_PAGE_SIZE[parts.kind],

    async migrate() {
      await parts.open?.().catch((err: unknown) => {
        throw classifyDbError(err);
      });
      await migrate(migrationDb, schema, { long: parts.long, distribute: parts.distribute });
      await retry(() => shards.detect());
    },

    async ensureThread(threadId, agentId, tenantId = DEFAULT_TENANT) {
      for (;;) {
        const created = await retry(() => insertThread(db, s, threadId, agentId, tenantId));
        if (created) return { thread: created, created: true };
        // Unscoped on purpose: a scoped miss could not tell "deleted meanwhile" from "not ours".
        const thread = await retry(() => selectThread(db, s, threadId, null));
        if (thread && thread.tenantId !== tenantId) throw new ThreadNotOwnedError(threadId, tenantId);
        if (thread) return { thread, created: false };
        // deleted between the two statements: try again
      }
    },

    append(threadId, events, opts) {
      // Refused alone, before it can join (and fail) a batch: batch.ts enforces the same table.
      try {
        assertLegalAppend(threadId, events);
      } catch (err) {
        return Promise.reject(err);
      }
      // The writer takes the five options it knows from `opts` itself: no copy per append.
      return writer.append(threadId, events, opts);
    },

    read: (threadId, opts = {}) => readRetry(() => readEvents(db, s, threadId, opts.after ?? 0, opts.limit ?? null, opts.before)),

    readPage: (threadId, opts) =>
      readRetry(() => readEventsPage(db, s, threadId, opts.after ?? 0, opts.limit ?? LOG_PAGE_SIZE[parts.kind], LOG_PAGE_BYTES, opts.before)),

    readCompacted: (threadId, after, limit) => readRetry(() => readCompacted(db, s, threadId, after, limit)),

    // Each of its statements retried and waited for on its own: a large checkpoint is several
    // bounded answers (sql/checkpoints.ts), none of which the read's wait cuts short.
    readCheckpoint,

    checkpointSeq: (threadId) => readRetry(() => selectCheckpointSeq(db, s, threadId)),

    async admissionView(threadId, runId): Promise<AdmissionView> {
      const view = await admissionViews.read({ threadId, runId });
      // Too large for the statement: read in parts after it. Newer than the row if a run ended
      // in between, which the admission's write then refuses (the thread moved), as it would anyway.
      return view.checkpoint === undefined ? { ...view, checkpoint: await readCheckpoint(threadId) } : { ...view, checkpoint: view.checkpoint };
    },

    countAfter: (threadId, after) => readRetry(() => countEventsAfter(db, s, threadId, after)),

    follow: (threadId, after, signal, opts) =>
      follow(
        {
          feed: opts?.foreignOnly ? foreignFeed : feed,
          read: (id, cursor, limit) => read(id, cursor, limit),
          listening: (sig) => listener.listening(sig),
          closed: () => closed,
          pageSize: LOG_PAGE_SIZE[parts.kind],
        },
        threadId,
        after,
        signal,
      ),

    followerCount: () => feed.size + foreignFeed.size,

    committedHereAt: (event) => feed.committedAt(event),

    getThread: (threadId, tenantId) => readRetry(() => selectThread(db, s, threadId, tenantId ?? null)),

    getThreadListing: (threadId, tenantId) => readRetry(() => selectThreadListing(db, s, threadId, tenantId ?? null)),

    async listThreads(filter = {}) {
      const limit = Math.min(MAX_PAGE, Math.max(1, Math.floor(filter.limit ?? DEFAULT_PAGE)));
      const before = filter.before ? decodeCursor(filter.before) : null;
      const page = await readRetry(() =>
        selectThreadPage(db, s, {
          tenantId: filter.tenantId ?? null,
          agentId: filter.agentId ?? null,
          status: filter.status ?? null,
          before,
          limit: limit + 1,
          archived: filter.archived === "all" ? null : (filter.archived ?? false),
          titleHas: filter.titleHas ?? null,
        }),
      );
      const more = page.threads.length > limit;
      return {
        threads: page.threads.slice(0, limit),
        next: more ? encodeThreadCursor(page.keys[limit - 1]!) : null,
      };
    },

    // A person waits on it: retried within the read wait, which is safe since setting the same
    // title or archive flag twice is the same as once (a late commit changes nothing more).
    updateThread: (threadId, change, tenantId) => readRetry(() => updateThreadMeta(db, s, threadId, tenantId ?? null, change)),

    // Not retried: a retry after a delete whose reply was lost would answer not_found.
    async deleteThread(threadId, tenantId) {
      const outcome = await deleteThread(db, s, threadId, tenantId ?? null);
      if (outcome === "deleted") feed.forget(threadId); // a thread made again counts from seq 1
      return outcome;
    },

    getRun: (threadId, runId) => readRetry(() => selectRun(db, s, threadId, runId)),

    runStatus: (threadId, runId) => readRetry(() => selectRunStatus(db, s, threadId, runId)),

    webhooks,

    schedules: scheduleStore(db, s, retry, readRetry),

    memory: memoryStore(db, s, retry, readRetry),

    async enqueueRun(threadId, runId, input) {
      try {
        return await retry(() => insertQueuedRun(db, s, threadId, runId, input));
      } catch (err) {
        if (sqlStateOf(err) === FOREIGN_KEY_VIOLATION) throw new ThreadNotFoundError(threadId, { cause: err });
        throw err;
      }
    },

    nextQueuedRun: (threadId) => retry(() => selectNextQueuedRun(db, s, threadId)),

    countQueuedRuns: () => readRetry(() => countQueuedRuns(db, s)),

    acquireLease: (threadId, leaseOwner, ttlMs) => retry(() => acquireLease(leaseDb, s, threadId, leaseOwner, ttlMs)),
    // Not retried: a beat that fails is a missed beat (the TTL spans three); retrying it for
    // the whole retry bound would only delay the next one.
    // One statement per shard (one on a single node), so that none spans two. A shard that
    // fails (its writes blocked by a move) fails the beat of its threads only.
    async heartbeat(leaseOwner, threadIds, ttlMs) {
      if (threadIds.length === 0) return [];
      const groups = await shards.group(threadIds, (id) => id);
      const beats = await Promise.allSettled(groups.map((g) => heartbeatLeases(leaseDb, s, leaseOwner, g, ttlMs)));
      const failed = beats.flatMap((b, i) => (b.status === "rejected" ? [{ threads: groups[i]!, err: b.reason as unknown }] : []));
      const held = beats.flatMap((b) => (b.status === "fulfilled" ? b.value : []));
      if (failed.length === 0) return held;
      if (failed.length === groups.length) throw failed[0]!.err;
      throw new HeartbeatMissedError(held, failed.flatMap((f) => f.threads), failed[0]!.err);
    },
    releaseLease: (threadId, leaseOwner) => retry(() => releaseLease(leaseDb, s, threadId, leaseOwner)),
    async releaseAllLeases(leaseOwner) {
      const held = await retry(() => selectLeasedThreads(leaseDb, s, leaseOwner));
      const released: string[] = [];
      for (const group of await byShard(held)) released.push(...(await retry(() => releaseLeases(leaseDb, s, leaseOwner, group))));
      return released;
    },
    // Candidates first, then one claim each (sql/leases.ts): the claim is where the lock is. A
    // candidate another claimer took meanwhile is passed over and the next ones read, so that
    // concurrent claimers share the orphans rather than all reaching for the first `limit`.
    async claimExpired(leaseOwner, ttlMs, limit, executingHere = []) {
      const passed = [...executingHere];
      const claimed: ThreadRow[] = [];
      while (claimed.length < limit) {
        const candidates = await retry(() => selectExpiredLeases(leaseDb, s, limit - claimed.length, passed));
        if (candidates.length === 0) break;
        for (const threadId of candidates) {
          passed.push(threadId);
          const row = await retry(() => claimExpiredLease(leaseDb, s, threadId, leaseOwner, ttlMs, executingHere));
          if (row) claimed.push(row);
        }
      }
      return claimed;
    },

    compact: (olderThanMs) => compactStreamEvents({ db, s, shards, retry }, olderThanMs),

    ping: () => assertMigrated(db, schema),

    ...(parts.connections && { connections: parts.connections }),
    ...(parts.poolStats && { poolStats: parts.poolStats }),

    async close() {
      if (closed) return;
      await writer.close();
      closed = true;
      feed.wakeAll(); // followers see `closed` and end
      foreignFeed.wakeAll();
      await listener.close();
      await db.close();
      if (leaseDb !== db) await leaseDb.close();
      if (migrationDb !== db) await migrationDb.close();
    },
  };
}

/** The cursor's key; a cursor ThreadCursorSchema refuses is the caller's error, before any statement. */
function decodeCursor(cursor: string): ThreadKey {
  const parsed = ThreadCursorSchema.safeParse(cursor);
  if (parsed.success) return parsed.data;
  throw new InvalidCursorError(cursor);
}
