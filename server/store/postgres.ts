/**
 * The Postgres backend: a pg.Pool for statements and flush transactions, plus one dedicated
 * connection that LISTENs for the doorbell of other instances.
 */
import pg from "pg";
import type { Db, QueryResult, Row, Tx } from "./db.ts";
import { CommitOutcomeUnknownError, coerceError } from "./errors.ts";
import { createPgListener } from "./listener.ts";
import { sqlStateOf } from "./retry.ts";
import { schemaNames } from "./schema.ts";
import { createEventStore, type CommonStoreOptions } from "./store.ts";
import type { EventStore } from "./types.ts";

export interface PostgresStoreOptions extends CommonStoreOptions {
  connectionString: string;
  /** pool size (default 10); the writer uses one connection at a time */
  maxConnections?: number;
  /** shown in pg_stat_activity (default "threadline") */
  applicationName?: string;
}

export function createPostgresStore(opts: PostgresStoreOptions): EventStore {
  const schema = schemaNames(opts.schema);
  const onError = opts.onError ?? (() => {});
  const appName = opts.applicationName ?? "threadline";
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.maxConnections ?? 10,
    application_name: appName,
    keepAlive: true,
  });
  // An idle client whose connection dies emits here; without a listener it would crash the process.
  pool.on("error", (err) => onError(err));

  return createEventStore({
    kind: "postgres",
    db: opts.instrument ? opts.instrument(poolDb(pool)) : poolDb(pool),
    schema,
    writer: opts.writer,
    retry: opts.retry,
    listener: (handlers) =>
      createPgListener({
        client: {
          connectionString: opts.connectionString,
          application_name: `${appName}:listen:${schema.name}`,
          keepAlive: true,
        },
        channel: schema.channel,
        onPayload: handlers.onPayload,
        onReconnect: handlers.onReconnect,
        onError,
      }),
  });
}

function clientQueryable(client: pg.Pool | pg.PoolClient) {
  return {
    async query<R = Row>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
      const result = await client.query(text, params as unknown[] | undefined);
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    },
  };
}

export function poolDb(pool: pg.Pool): Db {
  return {
    kind: "postgres",
    ...clientQueryable(pool),

    async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      // A client whose connection broke must not go back to the pool: release(err) destroys it.
      // While checked out, the pool no longer listens to the client's errors: without this
      // listener, a connection dropped mid-transaction would crash the process.
      let broken: Error | undefined;
      const onError = (err: Error) => {
        broken = err;
      };
      client.on("error", onError);
      const tx: Tx = {
        ...clientQueryable(client),
        async exec(script) {
          await client.query(script);
        },
      };
      try {
        await client.query("begin");
        const result = await fn(tx);
        try {
          await client.query("commit");
        } catch (err) {
          // The server refused the commit (serialization failure, deferred constraint): the
          // transaction is rolled back and the error is what it says. No answer, or the session
          // ending (class 08, 57P0x): COMMIT was in flight and nobody knows the outcome.
          const code = sqlStateOf(err);
          if (code !== undefined && !code.startsWith("08") && !code.startsWith("57P")) throw err;
          broken = coerceError(err);
          throw new CommitOutcomeUnknownError(err);
        }
        return result;
      } catch (err) {
        if (!broken && !(err instanceof CommitOutcomeUnknownError)) {
          await client.query("rollback").catch((e: unknown) => {
            broken = coerceError(e);
          });
        }
        throw err;
      } finally {
        client.release(broken);
        client.off("error", onError);
      }
    },

    close: () => pool.end(),
  };
}
