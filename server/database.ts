/**
 * The `database` option to an event store: a URL opens the store's own Postgres pools, the
 * application's pg.Pool or PGlite instance is used as it is (and left open by close()), and
 * nothing means DATABASE_URL or, without it, the embedded PGlite under DATA_DIR (locked to this
 * process and private to its user while open: store/pglite.ts).
 */
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { dbTimeouts, type Config } from "./config.ts";
import type { DatabaseOption } from "./options.ts";
import { ThreadlineOptionsError } from "./options.ts";
import { createPgliteStore, createPostgresStore, type CommonStoreOptions } from "./store/index.ts";
import type { EventStore } from "./store/types.ts";
import { sandboxPassesThrough } from "./workspace/host.ts";

/**
 * `listeningPort`: the port this process listens on, once it does, for the embedded database's
 * lock to name to a second process that tries the same directory.
 */
export function openDatabase(
  database: DatabaseOption | undefined,
  config: Config,
  common: CommonStoreOptions,
  listeningPort: () => number | undefined = () => undefined,
): EventStore {
  const options = { ...common, schema: config.DATABASE_SCHEMA, retry: { maxElapsedMs: config.DB_RETRY_MAX_MS } };
  if (database === undefined || typeof database === "string") {
    // resolveConfig put a URL given as `database` into DATABASE_URL.
    if (!config.DATABASE_URL) {
      const dataDir = config.DATA_DIR;
      return createPgliteStore({ ...options, dataDir, dataDirMode: sandboxPassesThrough(config, dataDir) ? 0o711 : 0o700, listeningPort });
    }
    return createPostgresStore({
      ...options,
      connectionString: config.DATABASE_URL,
      directConnectionString: config.DATABASE_DIRECT_URL,
      poolMode: config.DATABASE_POOL_MODE,
      distribute: config.DATABASE_DISTRIBUTE,
      timeouts: dbTimeouts(config),
    });
  }
  if (isPgPool(database)) return createPostgresStore({ ...options, connectionString: "", pool: database });
  // An application's own PGlite: it opened the directory, so the lock is its to take (two stores
  // of one process may share one instance).
  if (isPglite(database)) return createPgliteStore({ ...options, pglite: database });
  throw new ThreadlineOptionsError("database must be a Postgres URL, a pg.Pool or a PGlite instance.");
}

/**
 * Checked by shape as well as by class: an application may bring its own copy of pg (another
 * version in its node_modules), whose Pool is not this package's class.
 */
function isPgPool(value: object): value is pg.Pool {
  if (value instanceof pg.Pool) return true;
  const v = value as Record<string, unknown>;
  return typeof v.connect === "function" && typeof v.query === "function" && typeof v.end === "function" && typeof v.totalCount === "number";
}

function isPglite(value: object): value is PGlite {
  if (value instanceof PGlite) return true;
  const v = value as Record<string, unknown>;
  return typeof v.query === "function" && typeof v.exec === "function" && typeof v.listen === "function" && typeof v.transaction === "function";
}
