/**
 * What the PGlite store asks of its database: statements, transactions, a flush's batch, LISTEN
 * and close. Two providers: a PGlite in this thread (in memory, or the application's own
 * instance) and a PGlite on a worker thread (a data directory the store opens itself:
 * pglite-thread.ts), so the store's SQL is the same either way.
 */
import type { PGlite } from "@electric-sql/pglite";
import type { QueryResult, Row, Statement, Tx } from "./db.ts";
import { runBatch } from "./pglite-prepared.ts";

export interface PgliteSession {
  query<R = Row>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
  /** BEGIN, fn, COMMIT (ROLLBACK when fn throws), PGlite's transaction(). */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** The statements as one implicit transaction in one call into the WASM (pglite-prepared.ts). */
  batch(statements: readonly Statement[]): Promise<Row[][]>;
  /** LISTEN; resolves with the UNLISTEN. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  readonly closed: boolean;
  close(): Promise<void>;
}

const sessions = new WeakMap<PGlite, PgliteSession>();

/** A PGlite of this thread as a session; the same session for the same instance (stores share it). */
export function inThreadSession(pglite: PGlite): PgliteSession {
  let session = sessions.get(pglite);
  if (session) return session;
  session = {
    query: (text, params) => resultOf(pglite.query(text, params as unknown[] | undefined)),
    transaction: (fn) =>
      pglite.transaction((t) =>
        fn({
          query: (text, params) => resultOf(t.query(text, params as unknown[] | undefined)),
          async exec(script) {
            await t.exec(script);
          },
        }),
      ),
    batch: (statements) => runBatch(pglite, statements),
    listen: (channel, onPayload) => pglite.listen(channel, onPayload),
    get closed() {
      return pglite.closed;
    },
    close: () => pglite.close(),
  };
  sessions.set(pglite, session);
  return session;
}

async function resultOf<R>(pending: Promise<{ rows: unknown[]; affectedRows?: number }>): Promise<QueryResult<R>> {
  const result = await pending;
  return { rows: result.rows as R[], rowCount: result.affectedRows ?? result.rows.length };
}
