/**
 * Domain errors of the store: typed, carrying the ids involved, the underlying error as `cause`,
 * and a message that says what to do. Transient infrastructure errors are not here: they are
 * retried (retry.ts) and only surface, wrapped in one of these, once retries are exhausted.
 */
export type StoreErrorCode =
  | "THREAD_NOT_FOUND"
  | "THREAD_NOT_OWNED"
  | "LEASE_LOST"
  | "APPEND_FAILED"
  | "COMMIT_OUTCOME_UNKNOWN"
  | "STORE_CLOSED"
  | "INVALID_CURSOR"
  | "STORE_NOT_READY"
  | "SCHEMA_TOO_NEW"
  | "DATABASE_UNAVAILABLE"
  | "DATA_DIR_UNUSABLE"
  | "DATA_DIR_IN_USE"
  | "ADMISSION_REFUSED";

export abstract class StoreError extends Error {
  abstract readonly code: StoreErrorCode;
}

export class ThreadNotFoundError extends StoreError {
  override readonly name = "ThreadNotFoundError";
  readonly code = "THREAD_NOT_FOUND";
  constructor(
    readonly threadId: string,
    options?: ErrorOptions,
  ) {
    super(`Thread ${threadId} does not exist: create it with ensureThread() before appending to it.`, options);
  }
}

/**
 * ensureThread on a thread id another tenant already uses: nothing was written. Routes answer it
 * as they answer an unknown thread (404), so that no tenant learns another's threads exist
 * beyond the id being taken.
 */
export class ThreadNotOwnedError extends StoreError {
  override readonly name = "ThreadNotOwnedError";
  readonly code = "THREAD_NOT_OWNED";
  constructor(
    readonly threadId: string,
    readonly tenantId: string,
  ) {
    super(`Thread ${threadId} belongs to another tenant than "${tenantId}": start the conversation with another threadId.`);
  }
}

/** A fenced append whose owner no longer holds the thread's lease: nothing was written. */
export class LeaseLostError extends StoreError {
  override readonly name = "LeaseLostError";
  readonly code = "LEASE_LOST";
  constructor(
    readonly threadId: string,
    readonly leaseOwner: string,
  ) {
    super(`${leaseOwner} no longer holds the lease of thread ${threadId}: another instance took the run over. Nothing was written; stop working on this run.`);
  }
}

/**
 * A heartbeat that reached some of its threads' shards and not the others (Citus: a shard whose
 * writes a move blocked past the lease pool's lock timeout). `held`: the threads of the shards
 * that answered that this owner still holds; `missed`: those whose beat was not made, neither
 * renewed nor known lost. `cause` is the first shard's error. Not a StoreError: it never reaches
 * a client. Rejected: failing the whole beat, which made every run of the instance miss it while
 * any one shard moved, and lose its lease after two such beats (docs/scaling.md, "Moving shards").
 */
export class HeartbeatMissedError extends Error {
  override readonly name = "HeartbeatMissedError";
  constructor(
    readonly held: readonly string[],
    readonly missed: readonly string[],
    cause: unknown,
  ) {
    super(`The lease heartbeat of ${missed.length} thread(s) failed (${messageOf(cause)}); ${held.length} renewed.`, { cause });
  }
}

/**
 * A run's admission found the thread changed since its batch was built (another run started or
 * ended, the thread was deleted or created), leased, or another agent's. Nothing was written; the
 * caller reads the thread again and decides (start again, queue, or refuse as busy).
 */
export class AdmissionRefusedError extends StoreError {
  override readonly name = "AdmissionRefusedError";
  readonly code = "ADMISSION_REFUSED";
  constructor(readonly threadId: string) {
    super(`Thread ${threadId} changed while a run was being admitted to it; nothing was written. Read the thread again and retry.`);
  }
}

/** An append whose batch could not be committed; `cause` is the database error. */
export class AppendError extends StoreError {
  override readonly name = "AppendError";
  readonly code = "APPEND_FAILED";
  constructor(
    readonly threadId: string,
    readonly eventCount: number,
    cause: unknown,
  ) {
    super(
      `Could not append ${eventCount} event(s) to thread ${threadId}: ${messageOf(cause)}. ` +
        `Nothing of this append was written.`,
      { cause },
    );
  }
}

/**
 * The connection broke while COMMIT was in flight: the transaction may or may not have been
 * committed. Never retried, since a retry could write the batch twice.
 */
export class CommitOutcomeUnknownError extends StoreError {
  override readonly name = "CommitOutcomeUnknownError";
  readonly code = "COMMIT_OUTCOME_UNKNOWN";
  constructor(cause: unknown) {
    super(`The connection was lost during COMMIT (${messageOf(cause)}); the outcome is unknown.`, { cause });
  }
}

export class StoreClosedError extends StoreError {
  override readonly name = "StoreClosedError";
  readonly code = "STORE_CLOSED";
  constructor() {
    super("The event store is closed: create a new one to keep using the database.");
  }
}

export class InvalidCursorError extends StoreError {
  override readonly name = "InvalidCursorError";
  readonly code = "INVALID_CURSOR";
  constructor(readonly cursor: string) {
    super(`Invalid page cursor ${JSON.stringify(cursor)}: pass back the \`next\` value of a previous page unchanged.`);
  }
}

export class StoreNotReadyError extends StoreError {
  override readonly name = "StoreNotReadyError";
  readonly code = "STORE_NOT_READY";
  constructor(detail: string, options?: ErrorOptions) {
    super(`The event store is not ready: ${detail}`, options);
  }
}

/**
 * A later release migrated the schema past what this release runs on: its newest migration
 * declares that only code knowing migration `compatibleFrom` or later still works (migrate.ts).
 * Readiness fails with it, so a load balancer drains this instance while the upgrade finishes.
 */
export class SchemaTooNewError extends StoreError {
  override readonly name = "SchemaTooNewError";
  readonly code = "SCHEMA_TOO_NEW";
  constructor(
    readonly schema: string,
    readonly applied: number,
    readonly compatibleFrom: number,
    readonly release: number,
  ) {
    super(
      `The event store is not ready: schema ${schema} is at migration ${applied}, which keeps code that knows migration ${compatibleFrom} or later ` +
        `working, and this release knows migrations up to ${release}. A rolling upgrade to a release with migration ${applied} is under way: ` +
        `replace this instance with that release`,
    );
  }
}

/** How a database was unavailable: what a client may be told (pg's own words go to `cause`). */
export type DatabaseFailure = "refused" | "reset" | "silent" | "unreachable" | "read_wait";

const FAILURE_TEXT: Record<DatabaseFailure, string> = {
  refused: "it refused the connection",
  reset: "it reset the connection",
  silent: "it did not answer in time",
  unreachable: "it could not be reached",
  // A read's own wait (store.ts readWaitMs), which a healthy but loaded database can also
  // outlast: said as the bound it is, so an operator does not look for an outage that is not there.
  read_wait: "it did not answer this read within the wait of a read, DB_CONNECT_TIMEOUT_MS: it is unreachable or overloaded; try again in a moment",
};

/**
 * The database could not be reached, or did not answer within the bound of the operation: it
 * refused the connection, reset it, or went silent. Nothing of the operation was committed (a
 * commit whose outcome is unknown is CommitOutcomeUnknownError instead). Produced in one place,
 * the guard every statement of the store passes (availability.ts); `cause` is what pg said.
 */
export class DatabaseUnavailableError extends StoreError {
  override readonly name = "DatabaseUnavailableError";
  readonly code = "DATABASE_UNAVAILABLE";
  constructor(
    readonly failure: DatabaseFailure,
    options?: ErrorOptions,
  ) {
    super(`The database is unavailable (${FAILURE_TEXT[failure]}); nothing was written.`, options);
  }
}

/**
 * The embedded database's directory could not be made, written, or opened: `cause` is the
 * syscall's error (its `code` and `path`) or PGlite's. Nothing was written.
 */
export class DataDirError extends StoreError {
  override readonly name = "DataDirError";
  readonly code = "DATA_DIR_UNUSABLE";
  constructor(
    readonly dataDir: string,
    cause: unknown,
  ) {
    super(`The embedded database cannot use the directory ${dataDir}: ${messageOf(cause)}.`, { cause });
  }
}

/** The process holding an embedded database's directory, in its own words (data-dir-lock.ts). */
export interface DataDirHolder {
  pid: number;
  host: string;
  /** the port it listens on, when it said */
  port?: number;
  /** when it took the directory (ISO time) */
  since: string;
  /** its host is this one (its pid means something here) */
  sameHost: boolean;
}

/**
 * Another live process holds the embedded database's directory (its lock, data-dir-lock.ts):
 * two PGlite instances on one directory would each overwrite what the other wrote. `holder` is
 * undefined when it has not said who it is (yet). Nothing was opened.
 */
export class DataDirInUseError extends StoreError {
  override readonly name = "DataDirInUseError";
  readonly code = "DATA_DIR_IN_USE";
  constructor(
    readonly dataDir: string,
    readonly holder: DataDirHolder | undefined,
  ) {
    super(`The embedded database's directory ${dataDir} is in use by ${holderText(holder)}: stop that process first, or give this one its own directory.`);
  }
}

/** "process 123 on host h, listening on port 6101", or what is known of it. */
export function holderText(holder: DataDirHolder | undefined): string {
  if (!holder) return "another process (it has not said which)";
  const where = holder.sameHost ? "" : ` on host ${holder.host}`;
  const port = holder.port ? `, listening on port ${holder.port}` : "";
  return `another process (pid ${holder.pid}${where}${port})`;
}

/** Anything thrown, as an Error (the original kept as `cause` when it was not one). */
export function coerceError(err: unknown): Error {
  if (err instanceof Error) return err;
  return new Error(messageOf(err), { cause: err });
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === "string" ? err : JSON.stringify(err);
}


/**
 * The session URL (DATABASE_DIRECT_URL) could not be probed: a start-up failure of its own, whose
 * sentence names that setting rather than DATABASE_URL (startup-errors.ts).
 */
export class DirectUrlError extends Error {
  override readonly name = "DirectUrlError";
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`DATABASE_DIRECT_URL could not be reached: ${messageOf(cause)}`, { cause });
  }
}
