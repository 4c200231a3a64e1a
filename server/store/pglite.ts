/**
 * The PGlite backend: Postgres compiled to WASM, in this process. File-backed under dataDir, or
 * in memory when there is none. One session: PGlite serialises queries and transactions itself.
 *
 * The database opens on first use (migrate() first of all), not when the store is made:
 * building a server does no I/O, so one that cannot listen on its port never touches a
 * directory another server may have open. Opening checks the directory first (made, a file
 * written and removed, within a bound): PGlite itself, handed a directory it cannot write,
 * waits forever or fails without naming it. Then it takes the directory's lock (one process per
 * directory: data-dir-lock.ts) and makes it private (pglite-files.ts) before PGlite writes there.
 */
import fs from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import { prepareWritableDir } from "../make-dirs.ts";
import { type DataDirLock, lockDataDir } from "./data-dir-lock.ts";
import type { Db, QueryResult, Row } from "./db.ts";
import { DataDirError, DataDirInUseError } from "./errors.ts";
import { makePostgresFilesPrivate, PRIVATE_DIR_MODE } from "./pglite-files.ts";
import { inThreadSession, type PgliteSession } from "./pglite-session.ts";
import { openPgliteOnThread } from "./pglite-thread.ts";
import { createPgliteListener } from "./listener.ts";
import type { LongMigrationDb } from "./long-migration.ts";
import { schemaNames } from "./schema.ts";
import { createEventStore, type CommonStoreOptions } from "./store.ts";
import type { EventStore } from "./types.ts";

export interface PgliteStoreOptions extends CommonStoreOptions {
  /** directory of the database files; in memory when absent */
  dataDir?: string;
  /**
   * dataDir's own mode (default 0700): 0711 when another user must pass through it (the
   * sandbox's user, to a workspace root inside it). What Postgres keeps in it is 0700/0600 either way.
   */
  dataDirMode?: number;
  /** The port this process listens on, if it does: the directory's lock names it to a second process. */
  listeningPort?: () => number | undefined;
  /**
   * An existing PGlite instance to use instead of opening one (dataDir is then ignored). The
   * store does not close it. Stores sharing an instance wake each other's followers through
   * the doorbell, as Postgres stores in different processes do.
   */
  pglite?: PGlite | PgliteSession;
  /**
   * The files of a cluster to start from (PGlite's dumpDataDir), for an in-memory database:
   * PGlite then skips initdb, seconds of CPU per instance (the tests start hundreds).
   */
  loadDataDir?: Blob;
}

export function createPgliteStore(opts: PgliteStoreOptions = {}): EventStore {
  const schema = schemaNames(opts.schema);
  const given = opts.pglite;
  let opening: Promise<OpenedPglite> | undefined;
  const opened = () => (opening ??= given ? Promise.resolve({ pglite: sessionOf(given) }) : openPglite(opts));
  const open = async () => (await opened()).pglite;
  const owned = given ? undefined : () => opening;
  const db = opts.instrument ? opts.instrument(pgliteDb(open, owned)) : pgliteDb(open, owned);
  return createEventStore({
    kind: "pglite",
    db,
    long: pgliteLongMigrations(open, db),
    schema,
    // A flush at the end of the event loop's turn, after every socket read of that turn: a
    // commit here is this thread's CPU, so appends do not gather during it as they do while a
    // Postgres commit is on the wire. Rejected: a timer, which would add its delay to every
    // token when idle; setImmediate adds none.
    writer: { schedule: setImmediate, ...opts.writer },
    retry: opts.retry,
    listener: (handlers) => createPgliteListener(open, schema.channel, handlers.onPayload),
    open: async () => {
      await open();
    },
  });
}

/** A PGlite this store opened, and the lock on its directory (none in memory). */
interface OpenedPglite {
  pglite: PgliteSession;
  lock?: DataDirLock;
}

/**
 * A PGlite in memory, or under `dataDir` once the directory proved writable, its lock is this
 * process's and it is private; DataDirInUseError when another process holds it, DataDirError
 * when it cannot be used.
 */
async function openPglite(opts: PgliteStoreOptions): Promise<OpenedPglite> {
  const { dataDir, loadDataDir } = opts;
  if (!dataDir) return { pglite: inThreadSession(new PGlite(loadDataDir ? { loadDataDir } : {})) };
  let lock: DataDirLock | undefined;
  let pglite: PgliteSession | undefined;
  try {
    await prepareWritableDir(dataDir, { mode: PRIVATE_DIR_MODE });
    lock = await lockDataDir(dataDir, opts.listeningPort);
    // 0700 while PGlite writes (a first open makes its files 0666), whatever the final mode.
    await fs.chmod(dataDir, PRIVATE_DIR_MODE);
    // On a thread of its own: opening is seconds of synchronous WASM (pglite-thread.ts).
    pglite = await openPgliteOnThread(dataDir);
    await makePostgresFilesPrivate(dataDir);
    if (opts.dataDirMode !== undefined && opts.dataDirMode !== PRIVATE_DIR_MODE) await fs.chmod(dataDir, opts.dataDirMode);
    return { pglite, lock };
  } catch (err) {
    // Best effort: the failure being reported is the one that matters; the lock goes with the
    // descriptor, and a PGlite that did not finish opening holds nothing else.
    await pglite?.close().catch(() => undefined);
    await lock?.release().catch(() => undefined);
    if (err instanceof DataDirInUseError) throw err;
    throw new DataDirError(dataDir, err);
  }
}

/** Per PGlite instance: the migration lock, a queue in this process (below). */
const migrationLocks = new WeakMap<PgliteSession, Promise<unknown>>();

/**
 * Long migrations in process. PGlite sets no statement_timeout and has no client timeout, so a
 * long transaction is any transaction. The migration lock is a queue per instance rather than an
 * advisory lock: every store on an instance shares its one session, where an advisory lock is
 * re-entrant and would let two of them in at once; and no other process opens the instance.
 */
export function pgliteLongMigrations(open: () => Promise<PGlite | PgliteSession>, db: Db): LongMigrationDb {
  return {
    transactionWithoutTimeout: (fn) => db.transaction(fn),
    async underMigrationLock(_schema, _opts, fn) {
      const pglite = sessionOf(await open());
      // The turn before this one rejected to its own caller; here it only has to have ended.
      const turn = (migrationLocks.get(pglite) ?? Promise.resolve()).catch(() => {}).then(() => fn(queryable(async () => pglite)));
      migrationLocks.set(pglite, turn);
      return turn;
    },
  };
}

/** An application's PGlite (or a test's) as a session; a session as it is. */
function sessionOf(pglite: PGlite | PgliteSession): PgliteSession {
  return pglite instanceof PGlite ? inThreadSession(pglite) : pglite;
}

/**
 * Single statements go through PGlite's query(), unnamed. A flush (batch() below) goes through
 * pglite-prepared.ts: in process there is no round trip to save, but every call into the WASM
 * Postgres and every parse and plan of the batch statement is CPU (measured, see
 * pglite-prepared.ts).
 */
function queryable(target: () => Promise<PgliteSession>) {
  return {
    query: async <R = Row>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>> => (await target()).query<R>(text, params),
  };
}

/**
 * The Db on a PGlite opened by `open` on first use. `owned`: the PGlite this store opened, if
 * it did (close() closes it); absent for an instance the application passed.
 */
export function pgliteDb(open: () => Promise<PGlite | PgliteSession>, owned?: () => Promise<OpenedPglite> | undefined): Db {
  const session = async () => sessionOf(await open());
  return {
    kind: "pglite",
    ...queryable(session),
    transaction: async (fn) => (await session()).transaction(fn),
    // In process: there is no round trip to save, only calls into the WASM to spare (one for the
    // whole flush, its transaction included) and the statements' plans to keep.
    batch: async (statements) => (await session()).batch(statements),
    close: async () => {
      // Never opened, or failed to (it released what it took): nothing to close.
      const opened = await owned?.()?.catch(() => undefined);
      try {
        await opened?.pglite.close();
      } finally {
        // After PGlite closed: its last writes are on disk before another process may open.
        await opened?.lock?.release();
      }
    },
  };
}
