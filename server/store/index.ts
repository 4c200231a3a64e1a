/**
 * The store's public surface: createStore picks the backend (Postgres when a database URL is
 * given, else the embedded PGlite), plus the types and errors callers branch on.
 */
import { createPgliteStore } from "./pglite.ts";
import { createPostgresStore, type DbTimeouts } from "./postgres.ts";
import type { PoolModeSetting } from "./pool-mode.ts";
import type { CommonStoreOptions } from "./store.ts";
import type { EventStore } from "./types.ts";

export interface StoreConfig extends CommonStoreOptions {
  /** Postgres connection string (DATABASE_URL); when absent, PGlite is used */
  databaseUrl?: string;
  /** PGlite data directory (DATA_DIR); in memory when absent too */
  dataDir?: string;
  /** Postgres only: bounds on every connection */
  timeouts?: Partial<DbTimeouts>;
  /** Postgres only: a session URL for LISTEN when databaseUrl is a transaction-mode pooler */
  directDatabaseUrl?: string;
  /** Postgres only: what databaseUrl is (default "auto": detected at start) */
  poolMode?: PoolModeSetting;
}

export function createStore(config: StoreConfig = {}): EventStore {
  const { databaseUrl, dataDir, timeouts, directDatabaseUrl, poolMode, ...common } = config;
  if (databaseUrl) {
    return createPostgresStore({ ...common, timeouts, connectionString: databaseUrl, directConnectionString: directDatabaseUrl, poolMode });
  }
  return createPgliteStore({ ...common, dataDir });
}

export { createPgliteStore, type PgliteStoreOptions } from "./pglite.ts";
export { createPostgresStore, DEFAULT_DB_TIMEOUTS, type DbTimeouts, type PostgresStoreOptions } from "./postgres.ts";
export type { CommonStoreOptions } from "./store.ts";
export type { WriterOptions } from "./writer.ts";
export type { RetryOptions } from "./retry.ts";
export { DEFAULT_SCHEMA } from "./schema.ts";
export type { PoolModeSetting } from "./pool-mode.ts";
export { POLL_DOORBELL_INTERVAL_MS } from "./poll-doorbell.ts";
export {
  AppendError,
  CommitOutcomeUnknownError,
  DatabaseUnavailableError,
  type DatabaseFailure,
  DataDirError,
  HeartbeatMissedError,
  InvalidCursorError,
  LeaseLostError,
  StoreClosedError,
  StoreError,
  SchemaTooNewError,
  StoreNotReadyError,
  ThreadNotFoundError,
  type StoreErrorCode,
} from "./errors.ts";
export type * from "./types.ts";
