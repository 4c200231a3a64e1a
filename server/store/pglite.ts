/**
 * The PGlite backend: Postgres compiled to WASM, in this process. File-backed under dataDir, or
 * in memory when there is none. One session: PGlite serialises queries and transactions itself.
 *
 * The database opens on first use (migrate() first of all), not when the store is made:
 * building a server does no I/O, so one that cannot listen on its port never touches a
 * directory another server may have open. Opening checks the directory first (made, a file
 * written and removed, within a bound): PGlite itself, handed a directory it cannot write,
 * waits forever or fails without naming it.
 */
import { PGlite, type Transaction } from "@electric-sql/pglite";
import { prepareWritableDir } from "../make-dirs.ts";
import type { Db, QueryResult, Row, Tx } from "./db.ts";
import { DataDirError } from "./errors.ts";
import { runBatch } from "./pglite-prepared.ts";
import { createPgliteListener } from "./listener.ts";
import type { LongMigrationDb } from "./long-migration.ts";
import { schemaNames } from "./schema.ts";
import { createEventStore, type CommonStoreOptions } from "./store.ts";
import type { EventStore } from "./types.ts";

export interface PgliteStoreOptions extends CommonStoreOptions {
  /** directory of the database files; in memory when absent */
  dataDir?: string;
  /**
   * An existing PGlite instance to use instead of opening one (dataDir is then ignored). The
   * store does not close it. Stores sharing an instance wake each other's followers through
   * the doorbell, as Postgres stores in different processes do.
   */
  pglite?: PGlite;
  /**
   * The files of a cluster to start from (PGlite's dumpDataDir), for an in-memory database:
   * PGlite then skips initdb, seconds of CPU per instance (the tests start hundreds).
   */
  loadDataDir?: Blob;
}

export function createPgliteStore(opts: PgliteStoreOptions = {}): EventStore {
  const schema = schemaNames(opts.schema);
  const given = opts.pglite;
  let opening: Promise<PGlite> | undefined;
  const open = () => (opening ??= given ? Promise.resolve(given) : openPglite(opts.dataDir, opts.loadDataDir));
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

/** A PGlite in memory, or under `dataDir` once the directory proved writable; DataDirError when not. */
async function openPglite(dataDir: string | undefined, loadDataDir: Blob | undefined): Promise<PGlite> {
  if (!dataDir) return new PGlite(loadDataDir ? { loadDataDir } : {});
  try {
    await prepareWritableDir(dataDir);
    const pglite = new PGlite(dataDir);
    await pglite.waitReady;
    return pglite;
  } catch (err) {
    throw new DataDirError(dataDir, err);
  }
}

/** Per PGlite instance: the migration lock, a queue in this process (below). */
const migrationLocks = new WeakMap<PGlite, Promise<unknown>>();

/**
 * Long migrations in process. PGlite sets no statement_timeout and has no client timeout, so a
 * long transaction is any transaction. The migration lock is a queue per instance rather than an
 * advisory lock: every store on an instance shares its one session, where an advisory lock is
 * re-entrant and would let two of them in at once; and no other process opens the instance.
 */
export function pgliteLongMigrations(open: () => Promise<PGlite>, db: Db): LongMigrationDb {
  return {
    transactionWithoutTimeout: (fn) => db.transaction(fn),
    async underMigrationLock(_schema, _opts, fn) {
      const pglite = await open();
      // The turn before this one rejected to its own caller; here it only has to have ended.
      const turn = (migrationLocks.get(pglite) ?? Promise.resolve()).catch(() => {}).then(() => fn(queryable(async () => pglite)));
      migrationLocks.set(pglite, turn);
      return turn;
    },
  };
}

/**
 * Single statements go through PGlite's query(), unnamed. A flush (batch() below) goes through
 * pglite-prepared.ts: in process there is no round trip to save, but every call into the WASM
 * Postgres and every parse and plan of the batch statement is CPU of this process (measured, see
 * pglite-prepared.ts).
 */
function queryable(target: () => Promise<PGlite | Transaction>) {
  return {
    async query<R = Row>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
      const result = await (await target()).query<R>(text, params as unknown[] | undefined);
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    },
  };
}

/**
 * The Db on a PGlite opened by `open` on first use. `owned`: the PGlite this store opened, if
 * it did (close() closes it); absent for an instance the application passed.
 */
export function pgliteDb(open: () => Promise<PGlite>, owned?: () => Promise<PGlite> | undefined): Db {
  return {
    kind: "pglite",
    ...queryable(open),
    transaction: async <T>(fn: (tx: Tx) => Promise<T>) =>
      (await open()).transaction((t) =>
        fn({
          ...queryable(async () => t),
          async exec(script) {
            await t.exec(script);
          },
        }),
      ),
    // In process: there is no round trip to save, only calls into the WASM to spare (one for the
    // whole flush, its transaction included) and the statements' plans to keep.
    batch: async (statements) => runBatch(await open(), statements),
    close: async () => {
      // Never opened, or failed to: nothing to close.
      const pglite = await owned?.()?.catch(() => undefined);
      await pglite?.close();
    },
  };
}
