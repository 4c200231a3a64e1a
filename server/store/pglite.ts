/**
 * The PGlite backend: Postgres compiled to WASM, in this process. File-backed under dataDir, or
 * in memory when there is none. One session: PGlite serialises queries and transactions itself.
 */
import { mkdirSync } from "node:fs";
import { PGlite, type Transaction } from "@electric-sql/pglite";
import type { Db, QueryResult, Row, Tx } from "./db.ts";
import { createPgliteListener } from "./listener.ts";
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
}

export function createPgliteStore(opts: PgliteStoreOptions = {}): EventStore {
  const schema = schemaNames(opts.schema);
  const owned = !opts.pglite;
  let pglite = opts.pglite;
  if (!pglite) {
    if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
    pglite = opts.dataDir ? new PGlite(opts.dataDir) : new PGlite();
  }
  const db = opts.instrument ? opts.instrument(pgliteDb(pglite, owned)) : pgliteDb(pglite, owned);
  return createEventStore({
    kind: "pglite",
    db,
    schema,
    writer: opts.writer,
    retry: opts.retry,
    listener: (handlers) => createPgliteListener(pglite, schema.channel, handlers.onPayload),
  });
}

function queryable(target: PGlite | Transaction) {
  return {
    async query<R = Row>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
      const result = await target.query<R>(text, params as unknown[] | undefined);
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    },
  };
}

export function pgliteDb(pglite: PGlite, owned: boolean): Db {
  return {
    kind: "pglite",
    ...queryable(pglite),
    transaction: <T>(fn: (tx: Tx) => Promise<T>) =>
      pglite.transaction((t) =>
        fn({
          ...queryable(t),
          async exec(script) {
            await t.exec(script);
          },
        }),
      ),
    // In process: there is no round trip to save, only the transaction to keep.
    batch: (statements) =>
      pglite.transaction(async (t) => {
        const results = [];
        for (const st of statements) results.push((await t.query<Row>(st.text, st.params as unknown[])).rows);
        return results;
      }),
    close: async () => {
      if (owned) await pglite.close();
    },
  };
}
