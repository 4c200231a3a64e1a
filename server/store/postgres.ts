/**
 * The Postgres backend: a pg.Pool for reads, leases and the API; the writer's own pipelined
 * connection for flushes; and one dedicated connection that LISTENs for the doorbell of other
 * instances.
 */
import pg from "pg";
import type { Db, QueryResult, Row, Statement, Tx } from "./db.ts";
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
  // The writer's own connection, pipelined: a flush is BEGIN, its statements and COMMIT sent at
  // once and answered in one round trip, and never waits for a pool slot behind readers.
  const writerPool = new pg.Pool({
    connectionString: opts.connectionString,
    max: 1,
    application_name: `${appName}:writer`,
    keepAlive: true,
    pipeline: true,
  } as pg.PoolConfig);
  writerPool.on("error", (err) => onError(err));
  const db = poolDb(pool, writerPool);

  return createEventStore({
    kind: "postgres",
    db: opts.instrument ? opts.instrument(db) : db,
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

/**
 * BEGIN, the statements and COMMIT on a pipelined connection: all sent before any answer is
 * read, and answered in order. The first statement the server answers with an error decides:
 * before COMMIT, the transaction never committed (a refusal aborts it, so that COMMIT answers
 * ROLLBACK; a terminated session ends there), so the error is what it says and a transient one
 * may be retried. A connection that broke without the server's word, or a COMMIT whose answer
 * was a broken session, leaves the outcome unknown.
 */
async function pipelinedBatch(pool: pg.Pool, statements: readonly Statement[]): Promise<Row[][]> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (err: Error) => {
    broken = err;
  };
  client.on("error", onError);
  try {
    const sent = [
      client.query("begin"),
      ...statements.map((st) => client.query(st.text, st.params as unknown[])),
      client.query("commit"),
    ];
    const settled = await Promise.allSettled(sent);
    const first = settled.findIndex((r) => r.status === "rejected");
    if (first === -1) {
      const commit = (settled.at(-1) as PromiseFulfilledResult<pg.QueryResult>).value;
      if (commit.command !== "COMMIT") throw new Error(`COMMIT answered ${commit.command}`);
      return settled.slice(1, -1).map((r) => (r as PromiseFulfilledResult<pg.QueryResult>).value.rows as Row[]);
    }
    const err = (settled[first] as PromiseRejectedResult).reason as unknown;
    const code = sqlStateOf(err);
    const sessionLost = code === undefined || code.startsWith("08") || code.startsWith("57P");
    if (sessionLost) broken = coerceError(err);
    if (code !== undefined && (first < settled.length - 1 || !sessionLost)) throw err;
    throw new CommitOutcomeUnknownError(err);
  } finally {
    client.off("error", onError);
    client.release(broken);
  }
}

export function poolDb(pool: pg.Pool, writerPool: pg.Pool = pool): Db {
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

    batch: (statements) => pipelinedBatch(writerPool, statements),

    async close() {
      await Promise.all([pool.end(), writerPool === pool ? undefined : writerPool.end()]);
    },
  };
}
