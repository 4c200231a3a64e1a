/**
 * Long migrations on Postgres (long-migration.ts), each on a connection of its own, opened for
 * the migration and ended after it. Rejected: the store's pools, whose clients give up
 * statement_timeout + 1 s into a statement (pg's query_timeout) while the server goes on building
 * the index, and whose connections a transaction-mode pooler shares, so a session lock taken on
 * one would not be this migration's.
 */
import pg from "pg";
import type { QueryResult, Queryable, Row, Tx } from "./db.ts";
import { beginBoundedScript, sessionBoundsScript, type TxBounds } from "./bounds.ts";
import { NoMigrationSessionError, type LongMigrationDb } from "./long-migration.ts";
import { lockMigrations, unlockMigrations } from "./sql/migrations.ts";

export interface PgLongMigrationOptions {
  /**
   * The client settings of a migration connection to a URL: without query_timeout (the server's
   * statement_timeout bounds a statement, where one applies), with TCP keepalive, so that a peer
   * that vanished still ends the wait.
   */
  client: (url: string) => pg.ClientConfig;
  /** the main URL: one transaction keeps its server connection through any pooler */
  connectionString: string;
  /** the URL that keeps sessions, or why there is none (session-plan.ts) */
  session: () => Promise<{ url: string } | { none: string }>;
  bounds: TxBounds;
}

/** A connection for one long migration: its statements, and its end (never back into a pool). */
interface OwnConnection extends Queryable {
  end(): Promise<void>;
}

/** The store's own connections: a new client per migration, with the store's bounds. */
export function pgLongMigrations(opts: PgLongMigrationOptions): LongMigrationDb {
  return longMigrationsOn(
    async (kind) => {
      if (kind === "transaction") return ownClient(opts.client(opts.connectionString));
      const where = await opts.session();
      if ("none" in where) throw new NoMigrationSessionError(where.none);
      return ownClient(opts.client(where.url));
    },
    opts.bounds,
  );
}

/**
 * An application's own pool: a client taken from it and destroyed after (its session settings
 * and locks must not serve the pool's next query). The pool's own settings hold otherwise, its
 * client-side query timeout included, which a long migration's statement must fit in.
 */
export function poolLongMigrations(pool: pg.Pool): LongMigrationDb {
  return longMigrationsOn(async () => {
    const client = await pool.connect();
    return { ...queryableOf(client), end: async () => client.release(true) };
  });
}

function longMigrationsOn(connect: (kind: "transaction" | "session") => Promise<OwnConnection>, bounds?: TxBounds): LongMigrationDb {
  return {
    transactionWithoutTimeout: (fn) =>
      using(connect("transaction"), async (q) => {
        await q.query(bounds ? beginBoundedScript({ ...bounds, statementMs: 0 }) : "begin; set local statement_timeout = 0");
        try {
          const tx: Tx = {
            query: q.query,
            async exec(script) {
              await q.query(script);
            },
          };
          const result = await fn(tx);
          await q.query("commit");
          return result;
        } catch (err) {
          // The connection ends right after; a rollback that fails changes nothing then.
          await q.query("rollback").catch(() => {});
          throw err;
        }
      }),

    underMigrationLock: (schema, { statementTimeout }, fn) =>
      using(connect("session"), async (session) => {
        // The lock is waited for without a bound (its holder runs a long migration); then the
        // statements get the bounds, less statement_timeout when the migration says so.
        await session.query("set statement_timeout = 0; set lock_timeout = 0");
        await lockMigrations(session, schema.name);
        try {
          if (bounds) await session.query(sessionBoundsScript({ ...bounds, statementMs: statementTimeout ? bounds.statementMs : 0 }));
          else await session.query(statementTimeout ? "reset statement_timeout; reset lock_timeout" : "reset lock_timeout");
          return await fn(session);
        } finally {
          // Ending the session frees the lock as well; this frees it should ending hang.
          await unlockMigrations(session, schema.name).catch(() => {});
        }
      }),
  };
}

async function using<T>(opening: Promise<OwnConnection>, use: (q: OwnConnection) => Promise<T>): Promise<T> {
  const conn = await opening;
  try {
    return await use(conn);
  } finally {
    // The migration's outcome is already decided (returned or thrown); a connection that fails to
    // end cleanly is closed by the server when its socket goes, and has nobody else to tell.
    await conn.end().catch(() => {});
  }
}

async function ownClient(config: pg.ClientConfig): Promise<OwnConnection> {
  const client = new pg.Client(config);
  // A connection that breaks emits "error"; unheard, it would crash the process. The query in
  // flight rejects as well, which is what reports the failure.
  client.on("error", () => {});
  await client.connect();
  return { ...queryableOf(client), end: () => client.end() };
}

function queryableOf(client: pg.ClientBase): Queryable {
  return {
    async query<R = Row>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
      const result = await client.query(text, params as unknown[] | undefined);
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    },
  };
}
