/**
 * The Postgres backend: a pg.Pool for reads, the API and migrations; the writer's own pipelined
 * connection for flushes; a small pool for the lease statements (so that a writer stuck on a
 * silent socket cannot starve the heartbeat); and one dedicated connection that LISTENs for the
 * doorbell of other instances.
 *
 * Every connection carries bounds (DbTimeouts): a silent socket (a failover, a dead NAT: packets
 * dropped, no reset) must end in an error within a known time, on both sides, or a transaction
 * left idle would hold its thread's row lock, and with it the thread, forever.
 */
import pg from "pg";
import type { Db, QueryResult, Row, Statement, Tx } from "./db.ts";
import { CommitOutcomeUnknownError, coerceError } from "./errors.ts";
import { createPgListener, type PgListenerOptions } from "./listener.ts";
import { isQueryTimeout, sqlStateOf } from "./retry.ts";
import { schemaNames, type SchemaNames } from "./schema.ts";
import { createEventStore, type CommonStoreOptions } from "./store.ts";
import type { EventStore } from "./types.ts";

/** How long each thing may take before it is an error. Every field in milliseconds. */
export interface DbTimeouts {
  /** opening a connection, and waiting for a free one in the pool (pg connectionTimeoutMillis) */
  connectMs: number;
  /**
   * server-side statement_timeout. The client gives up (pg query_timeout) a second later: a
   * silent socket never delivers the server's own timeout error.
   */
  statementMs: number;
  /** server-side lock_timeout of the main pool: a statement waiting on a row lock */
  lockMs: number;
  /** server-side idle_in_transaction_session_timeout: a transaction whose client went silent */
  idleInTransactionMs: number;
  /**
   * TCP: idle time before keepalive probes (client and server), and the server's
   * tcp_user_timeout (unacknowledged data to a silent client).
   */
  tcpMs: number;
  /** lock_timeout of the lease pool: a heartbeat that cannot get its row is a missed beat */
  leaseLockMs: number;
}

export const DEFAULT_DB_TIMEOUTS: Readonly<DbTimeouts> = {
  connectMs: 5_000,
  statementMs: 15_000,
  lockMs: 5_000,
  idleInTransactionMs: 5_000,
  tcpMs: 10_000,
  leaseLockMs: 1_000,
};

/** The client waits this much longer than statement_timeout, so the server's error wins when it can come. */
export const QUERY_TIMEOUT_MARGIN_MS = 1_000;

export interface PostgresStoreOptions extends CommonStoreOptions {
  connectionString: string;
  /**
   * The application's own pool, used for every connection instead of the store's pools (then
   * connectionString, maxConnections, applicationName and timeouts are not used: the pool's
   * settings are). The LISTEN session is taken from it with pool.connect() and given back
   * destroyed; close() does not end it.
   */
  pool?: pg.Pool;
  /** pool size (default 10); the writer uses one connection at a time */
  maxConnections?: number;
  /** shown in pg_stat_activity (default "threadline") */
  applicationName?: string;
  /** bounds on every connection; missing fields take DEFAULT_DB_TIMEOUTS */
  timeouts?: Partial<DbTimeouts>;
}

/**
 * The connection settings of one kind of connection. The server-side settings travel in the
 * startup packet (`options=-c name=value`), so every pooled connection has them from its first
 * statement. Rejected: a `SET` on pool "connect", which a statement could overtake and which
 * costs a round trip per connection.
 */
export function connectionConfig(
  connectionString: string,
  applicationName: string,
  t: DbTimeouts,
  lockMs: number,
): pg.ClientConfig {
  const settings: Record<string, number> = {
    statement_timeout: t.statementMs,
    lock_timeout: lockMs,
    idle_in_transaction_session_timeout: t.idleInTransactionMs,
    tcp_keepalives_idle: Math.max(1, Math.ceil(t.tcpMs / 1000)),
    tcp_keepalives_interval: Math.max(1, Math.ceil(t.tcpMs / 5000)),
    tcp_keepalives_count: 5,
    tcp_user_timeout: t.tcpMs,
  };
  return {
    connectionString,
    application_name: applicationName,
    connectionTimeoutMillis: t.connectMs,
    query_timeout: t.statementMs + QUERY_TIMEOUT_MARGIN_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: t.tcpMs,
    options: Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`).join(" "),
  };
}

export function createPostgresStore(opts: PostgresStoreOptions): EventStore {
  if (opts.pool) return createStoreOnPool({ ...opts, pool: opts.pool });
  const schema = schemaNames(opts.schema);
  const onError = opts.onError ?? (() => {});
  const appName = opts.applicationName ?? "threadline";
  const timeouts: DbTimeouts = { ...DEFAULT_DB_TIMEOUTS, ...opts.timeouts };
  const pool = new pg.Pool({
    ...connectionConfig(opts.connectionString, appName, timeouts, timeouts.lockMs),
    max: opts.maxConnections ?? 10,
  });
  // Heartbeat, acquire, release, claim: one statement each, on connections of their own, with a
  // short lock timeout. Rejected: sharing the main pool, where a writer stuck on a silent socket
  // (and the flushes queued behind it) could hold every connection the heartbeat needs.
  const leasePool = new pg.Pool({
    ...connectionConfig(opts.connectionString, `${appName}:lease`, timeouts, timeouts.leaseLockMs),
    max: 2,
  });
  // The writer's own connection, pipelined: a flush is BEGIN, its statements and COMMIT sent at
  // once and answered in one round trip, and never waits for a pool slot behind readers.
  const writerPool = new pg.Pool({
    ...connectionConfig(opts.connectionString, `${appName}:writer`, timeouts, timeouts.lockMs),
    max: 1,
    pipeline: true,
  } as pg.PoolConfig);
  // An idle client whose connection dies emits here; without a listener it would crash the process.
  pool.on("error", (err) => onError(err));
  leasePool.on("error", (err) => onError(err));
  writerPool.on("error", (err) => onError(err));
  return postgresStore(opts, schema, onError, {
    db: poolDb(pool, writerPool),
    leaseDb: poolDb(leasePool),
    readWaitMs: timeouts.connectMs,
    listenClient: connectionConfig(opts.connectionString, `${appName}:listen:${schema.name}`, timeouts, timeouts.lockMs),
  });
}

/** The store on its connections: what both ways of opening a Postgres store end with. */
function postgresStore(
  opts: PostgresStoreOptions,
  schema: SchemaNames,
  onError: (err: Error) => void,
  conn: { db: Db; leaseDb?: Db; readWaitMs: number; listenClient: PgListenerOptions["client"] },
): EventStore {
  return createEventStore({
    kind: "postgres",
    db: opts.instrument ? opts.instrument(conn.db) : conn.db,
    ...(conn.leaseDb && { leaseDb: conn.leaseDb }),
    readWaitMs: conn.readWaitMs,
    schema,
    writer: opts.writer,
    retry: opts.retry,
    listener: (handlers) =>
      createPgListener({
        client: conn.listenClient,
        channel: schema.channel,
        onPayload: handlers.onPayload,
        onReconnect: handlers.onReconnect,
        onError,
      }),
  });
}

/**
 * The store on a pool the application owns. Flushes are transactions with one awaited statement
 * after another, not the pipelined batch: pipelining is a setting of the connection, and these
 * connections are the application's, configured by it. Rejected: a pipelined connection of our
 * own next to the user's pool, which would bypass the pool they gave us (its size, its TLS, its
 * credentials) for the writes. The lease statements share the pool too, so they have its lock
 * timeout, not the short one of the store's own lease pool.
 */
function createStoreOnPool(opts: PostgresStoreOptions & { pool: pg.Pool }): EventStore {
  const { pool } = opts;
  const schema = schemaNames(opts.schema);
  const onError = opts.onError ?? (() => {});
  // The user's pool may have no error listener of its own; an idle client that dies emits here.
  const onPoolError = (err: Error) => onError(err);
  pool.on("error", onPoolError);
  const shared = poolDb(pool);
  const db: Db = {
    ...shared,
    batch: (statements) =>
      shared.transaction(async (tx) => {
        const rows: Row[][] = [];
        for (const st of statements) rows.push((await tx.query(st.text, st.params)).rows);
        return rows;
      }),
    async close() {
      pool.off("error", onPoolError); // the pool is the application's: left open
    },
  };
  return postgresStore(opts, schema, onError, {
    db,
    // The pool's own acquire bound, as for the store's pools; a pool without one (0, pg's
    // "wait forever") gets the default, so that a read still ends.
    readWaitMs: (pool.options as pg.PoolConfig).connectionTimeoutMillis || DEFAULT_DB_TIMEOUTS.connectMs,
    async listenClient() {
      const client = await pool.connect();
      // Destroyed, not returned: a session that LISTENs must not serve the pool's next query.
      return { client, dispose: async () => client.release(true) };
    },
  });
}

/** `onError` sees every failed statement before its caller does. */
function clientQueryable(client: pg.Pool | pg.PoolClient, onError?: (err: unknown) => void) {
  return {
    async query<R = Row>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
      try {
        const result = await client.query(text, params as unknown[] | undefined);
        return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
      } catch (err) {
        onError?.(err);
        throw err;
      }
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
    // The socket refused our bytes (it was reset before them): the COMMIT, written after them on
    // the same stream, never reached the server, so nothing committed and a retry is safe.
    if ((err as { syscall?: unknown }).syscall === "write") {
      broken = coerceError(err);
      throw err;
    }
    const code = sqlStateOf(err);
    // pg's client-side query timeout has no SQLSTATE: the socket is silent, the outcome unknown.
    const sessionLost = code === undefined || code.startsWith("08") || code.startsWith("57P") || isQueryTimeout(err);
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
      // pg's query_timeout answers the caller but leaves the statement in flight on the socket:
      // that client must be destroyed (release with an error ends it, destroying the socket of
      // a client with an active query), not asked for a ROLLBACK that would queue behind it.
      const { query } = clientQueryable(client, (err) => {
        if (isQueryTimeout(err)) broken = coerceError(err);
      });
      const run = (text: string) => query(text);
      client.on("error", onError);
      const tx: Tx = {
        query,
        async exec(script) {
          await run(script);
        },
      };
      try {
        await run("begin");
        const result = await fn(tx);
        try {
          await run("commit");
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
