/**
 * Where "the database is unavailable" is decided, once for every caller of the store: a statement
 * that fails because the database refused, reset or did not answer the connection rejects with
 * DatabaseUnavailableError (the pg error as `cause`), which the HTTP layer answers 503 with
 * Retry-After. Rejected: recognising pg's errors in the routes or the error handler, where every
 * new caller (a route, the CopilotKit runner, the engine) would have to know node-postgres's
 * error codes and messages, and one that forgot answered 500.
 */
import type { Db, Tx } from "./db.ts";
import { DatabaseUnavailableError, StoreError, StoreNotReadyError, type DatabaseFailure } from "./errors.ts";
import { isConnectionFailure, sqlStateOf } from "./retry.ts";

/** Which way the database failed, for the message; the error itself is kept as `cause`. */
function failureOf(err: unknown): DatabaseFailure {
  const { code, message } = err as { code?: unknown; message?: unknown };
  const text = typeof message === "string" ? message : "";
  if (code === "ECONNREFUSED") return "refused";
  // Before "Connection terminated": pg ends a connect that timed out with "Connection terminated
  // due to connection timeout", a silent database rather than a reset one.
  if (code === "ETIMEDOUT" || /timeout/i.test(text)) return "silent";
  if (code === "ECONNRESET" || code === "EPIPE" || /Connection terminated/i.test(text)) return "reset";
  return "unreachable";
}

/**
 * SQLSTATEs of a database that answers without the store's tables: undefined_table and
 * invalid_schema_name. The schema was dropped, or restored without them, after this instance
 * migrated it: what readiness reports as not ready, and no request's fault.
 */
const MISSING_SCHEMA_SQLSTATES = new Set(["42P01", "3F000"]);

/**
 * `err` as the store reports it: a connection failure becomes DatabaseUnavailableError, a missing
 * table or schema StoreNotReadyError (503 with the reason, as /readyz says, not a 500).
 */
export function classifyDbError(err: unknown): unknown {
  if (err instanceof StoreError) return err;
  if (isConnectionFailure(err)) return new DatabaseUnavailableError(failureOf(err), { cause: err });
  const state = sqlStateOf(err);
  if (state && MISSING_SCHEMA_SQLSTATES.has(state)) {
    const said = (err as { message?: unknown }).message;
    return new StoreNotReadyError(
      `${typeof said === "string" ? said : state}: the store's schema lost its tables, or was never migrated here; restart the server to migrate it (start() runs the migrations), or set DATABASE_SCHEMA to the schema it migrated`,
      { cause: err },
    );
  }
  return err;
}

const rethrowClassified = (err: unknown): never => {
  throw classifyDbError(err);
};

/**
 * The database seam with every failure classified. Transient errors stay transient for the retry
 * loop (isTransientError knows DatabaseUnavailableError), and a commit of unknown outcome keeps
 * its own class (it is a StoreError already, never retried).
 */
export function guardDb(db: Db): Db {
  return {
    kind: db.kind,
    query: <R>(text: string, params?: readonly unknown[], name?: string) => db.query<R>(text, params, name).catch(rethrowClassified),
    transaction: <T>(fn: (tx: Tx) => Promise<T>) => db.transaction(fn).catch(rethrowClassified),
    batch: (statements) => db.batch(statements).catch(rethrowClassified),
    close: () => db.close(),
  };
}

/**
 * `op`, or DatabaseUnavailableError once `waitMs` passed without its answer: the bound on how
 * long a read waits for a database that does not answer (a silent socket holds a statement until
 * the client query timeout, statement_timeout + 1 s, far past what a request should wait). Only
 * for reads: the read left behind ends on its own timeouts and changes nothing; a write cut off
 * this way could still commit after its caller was told it failed.
 */
export function withinWait<T>(op: Promise<T>, waitMs: number | undefined): Promise<T> {
  if (waitMs === undefined) return op;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DatabaseUnavailableError("read_wait", { cause: new Error(`no answer within ${waitMs} ms`) })), waitMs);
  });
  // The race keeps a handler on `op`, so its late rejection is not unhandled.
  return Promise.race([op, timeout]).finally(() => clearTimeout(timer));
}
