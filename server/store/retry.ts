/**
 * Transient infrastructure errors, retried with exponential backoff and jitter for a bounded
 * total time: an outage shorter than that bound pauses the caller, a longer one fails it.
 * Everything else (constraint violations, bad data, unknown commit outcome) fails at once.
 */
import { CommitOutcomeUnknownError, DatabaseUnavailableError, StoreClosedError } from "./errors.ts";

/** The message of pg's client-side query timeout (`query_timeout`), which has no code. */
export const QUERY_TIMEOUT_MESSAGE = /Query read timeout/;

/** Whether pg gave up waiting for the answer to a statement (the connection must not be reused). */
export function isQueryTimeout(err: unknown): boolean {
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === "string" && QUERY_TIMEOUT_MESSAGE.test(message);
}

/**
 * SQLSTATEs of a database that cannot be reached or is going away: the session is gone, or none
 * could be opened. Running the transaction again on a new connection is safe and may succeed.
 */
const CONNECTION_SQLSTATES: ReadonlyMap<string, string> = new Map([
  ["53300", "too_many_connections"],
  ["57P01", "admin_shutdown"],
  ["57P02", "crash_shutdown"],
  ["57P03", "cannot_connect_now"],
  ["08000", "connection_exception"],
  ["08001", "sqlclient_unable_to_establish_sqlconnection"],
  ["08003", "connection_does_not_exist"],
  ["08004", "sqlserver_rejected_establishment_of_sqlconnection"],
  ["08006", "connection_failure"],
  // The server ended a session whose transaction sat idle past idle_in_transaction_session_timeout:
  // the transaction rolled back with it, so it runs again on a new connection. A client that was
  // only slow (a process starved on a loaded machine, a GC pause) is sent this, and failing
  // there failed the start when it came in a migration. A COMMIT it ended is a
  // CommitOutcomeUnknownError, never retried.
  ["25P03", "idle_in_transaction_session_timeout"],
]);

/** SQLSTATEs of contention: the database answers, and the same transaction again may succeed. */
const CONTENTION_SQLSTATES: ReadonlyMap<string, string> = new Map([
  ["40001", "serialization_failure"],
  ["40P01", "deadlock_detected"],
  ["55P03", "lock_not_available"],
]);

/** Socket errors (Node errno codes) of a connection that broke or could not be opened. */
const CONNECTION_ERRNOS: ReadonlySet<string> = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "EAI_AGAIN",
]);

/** node-postgres reports a dropped connection with a message and no code. */
const CONNECTION_MESSAGES = [
  /Connection terminated/i,
  /connection timeout/i,
  /Client has encountered a connection error/i,
  // pg's connectionTimeoutMillis: no connection could be opened (or taken from the pool) in time
  /timeout exceeded when trying to connect/i,
  // pg's query_timeout: the socket went silent. The statement did not commit (a COMMIT that
  // timed out is a CommitOutcomeUnknownError, never retried), so running it again is safe.
  QUERY_TIMEOUT_MESSAGE,
];

/**
 * Whether this error itself (not its causes) says the database could not be reached or stopped
 * answering: refused, reset, terminated, or silent past a client-side timeout. The one test of
 * "the database is unavailable"; availability.ts turns such an error into DatabaseUnavailableError.
 */
export function isConnectionFailure(err: unknown): boolean {
  if (err === null || typeof err !== "object") return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && (CONNECTION_SQLSTATES.has(code) || CONNECTION_ERRNOS.has(code))) return true;
  const message = (err as { message?: unknown }).message;
  return typeof message === "string" && CONNECTION_MESSAGES.some((re) => re.test(message));
}

/**
 * Whether a connection could not be opened in time (pg's connect bound: the pool's "timeout
 * exceeded when trying to connect", the client's "connection timeout" or "timeout expired"), as
 * opposed to refused: the database may only be slow to accept, fork and authenticate, which a
 * starved machine makes it.
 */
export function isConnectTimeout(err: unknown): boolean {
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === "string" && /timeout exceeded when trying to connect|connection timeout|timeout expired/i.test(message);
}

/** The SQLSTATE of a database error, if the server sent one. */
export function sqlStateOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** An error and its causes, outermost first: at most five, since a cause chain may loop. */
export function* causes(err: unknown): Generator<unknown> {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) yield e;
}

export function isTransientError(err: unknown): boolean {
  for (const e of causes(err)) {
    if (e instanceof CommitOutcomeUnknownError) return false;
    if (e instanceof DatabaseUnavailableError || isConnectionFailure(e)) return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && CONTENTION_SQLSTATES.has(code)) return true;
  }
  return false;
}

/** Default of RetryOptions.maxElapsedMs (DB_RETRY_MAX_MS). */
export const DEFAULT_RETRY_MAX_MS = 10_000;

export interface RetryOptions {
  /** attempts in all, the first included (default: as many as fit in maxElapsedMs) */
  attempts?: number;
  /**
   * No retry starts after this long since the first attempt (default 10 s): the longest
   * database outage that pauses a caller instead of failing it. One attempt may still take up
   * to the client query timeout past it.
   */
  maxElapsedMs?: number;
  /** delay before the first retry, doubled each time (default 10 ms) */
  baseDelayMs?: number;
  /** cap on one delay (default 1000 ms) */
  maxDelayMs?: number;
  /** which failures are tried again (default isTransientError); a migration adds a lost COMMIT (migrate.ts) */
  retryIf?: (err: unknown) => boolean;
}

export async function withRetry<T>(fn: () => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const attempts = opts.attempts ?? Number.POSITIVE_INFINITY;
  const deadline = performance.now() + (opts.maxElapsedMs ?? DEFAULT_RETRY_MAX_MS);
  const base = opts.baseDelayMs ?? 10;
  const max = opts.maxDelayMs ?? 1000;
  const retryable = opts.retryIf ?? isTransientError;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= attempts || !retryable(err)) throw err;
      // "Full jitter": a random delay up to the exponential bound, so that writers that failed
      // together (a deadlock, a failover) do not retry together. The sleep never passes the
      // deadline; once there, the error stands.
      const left = deadline - performance.now();
      if (left <= 0) throw err;
      const bound = Math.min(max, base * 2 ** Math.min(attempt - 1, 30));
      await new Promise((resolve) => setTimeout(resolve, Math.min(left, Math.random() * bound)));
    }
  }
}

/**
 * True when an error says the database could not be reached or did not answer in time (after the
 * retries), or that a commit's outcome is unknown; false when it refused the statement itself.
 * The first is the infrastructure's fault and passes; the second is the data's.
 */
export function isStoreUnavailable(err: unknown): boolean {
  for (const e of causes(err)) {
    if (e instanceof CommitOutcomeUnknownError || e instanceof StoreClosedError || e instanceof DatabaseUnavailableError) return true;
    if (isTransientError(e)) return true;
  }
  return false;
}
