/**
 * Transient infrastructure errors, retried with exponential backoff and jitter. Everything else
 * (constraint violations, bad data, unknown commit outcome) fails at once.
 */
import { CommitOutcomeUnknownError, StoreClosedError } from "./errors.ts";

/** SQLSTATEs after which running the whole transaction again is safe and may succeed. */
const RETRYABLE_SQLSTATES: ReadonlyMap<string, string> = new Map([
  ["40001", "serialization_failure"],
  ["40P01", "deadlock_detected"],
  ["55P03", "lock_not_available"],
  ["53300", "too_many_connections"],
  ["57P01", "admin_shutdown"],
  ["57P02", "crash_shutdown"],
  ["57P03", "cannot_connect_now"],
  ["08000", "connection_exception"],
  ["08001", "sqlclient_unable_to_establish_sqlconnection"],
  ["08003", "connection_does_not_exist"],
  ["08004", "sqlserver_rejected_establishment_of_sqlconnection"],
  ["08006", "connection_failure"],
]);

/** Socket errors (Node errno codes) of a connection that broke or could not be opened. */
const RETRYABLE_ERRNOS: ReadonlySet<string> = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "EAI_AGAIN",
]);

/** node-postgres reports a dropped connection with a message and no code. */
const CONNECTION_MESSAGES = [/Connection terminated/i, /connection timeout/i, /Client has encountered a connection error/i];

/** The SQLSTATE of a database error, if the server sent one. */
export function sqlStateOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

export function isTransientError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof CommitOutcomeUnknownError) return false;
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (RETRYABLE_SQLSTATES.has(code) || RETRYABLE_ERRNOS.has(code))) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === "string" && CONNECTION_MESSAGES.some((re) => re.test(message))) return true;
  }
  return false;
}

export interface RetryOptions {
  /** attempts in all, the first included (default 6) */
  attempts?: number;
  /** delay before the first retry, doubled each time (default 10 ms) */
  baseDelayMs?: number;
  /** cap on one delay (default 1000 ms) */
  maxDelayMs?: number;
}

export async function withRetry<T>(fn: () => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const attempts = opts.attempts ?? 6;
  const base = opts.baseDelayMs ?? 10;
  const max = opts.maxDelayMs ?? 1000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= attempts || !isTransientError(err)) throw err;
      // "Full jitter": a random delay up to the exponential bound, so that writers that failed
      // together (a deadlock, a failover) do not retry together.
      const bound = Math.min(max, base * 2 ** (attempt - 1));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * bound));
    }
  }
}

/**
 * True when an error says the database could not be reached or did not answer in time (after the
 * retries), or that a commit's outcome is unknown; false when it refused the statement itself.
 * The first is the infrastructure's fault and passes; the second is the data's.
 */
export function isStoreUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof CommitOutcomeUnknownError || e instanceof StoreClosedError) return true;
    if (isTransientError(e)) return true;
  }
  return false;
}
