/**
 * The Postgres backend: a pg.Pool for reads, the API and migrations; the writer's own pipelined
 * connection for flushes; a small pool for the lease statements (so that a writer stuck on a
 * silent socket cannot starve the heartbeat); and the doorbell of other instances: one dedicated
 * session that LISTENs (on the main URL, or DATABASE_DIRECT_URL behind a transaction-mode
 * pooler), or, with no session to be had, polling (poll-doorbell.ts).
 *
 * Every statement carries bounds (DbTimeouts), set per transaction (bounds.ts) so that they pass
 * through a pooler: a silent socket (a failover, a dead NAT: packets dropped, no reset) must end
 * in an error within a known time, on both sides, or a transaction left idle would hold its
 * thread's row lock, and with it the thread, forever.
 */
import pg from "pg";
import type { Db, QueryResult, Row, Statement, Tx } from "./db.ts";
import { CommitOutcomeUnknownError, coerceError } from "./errors.ts";
import { beginBoundedScript, boundsStatement, EFFECTIVE_BOUNDS_SQL, type TxBounds } from "./bounds.ts";
import { createPgListener, untilAborted, type DoorbellListener } from "./listener.ts";
import { createPollingDoorbell, POLL_DOORBELL_INTERVAL_MS } from "./poll-doorbell.ts";
import { detectPoolMode, type PoolMode, type PoolModeSetting } from "./pool-mode.ts";
import { isQueryTimeout, sqlStateOf } from "./retry.ts";
import { schemaNames, type SchemaNames } from "./schema.ts";
import { createEventStore, type CommonStoreOptions, type DoorbellHandlers } from "./store.ts";
import type { ConnectionReport, EventStore } from "./types.ts";

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
  /**
   * A URL that keeps sessions (the server itself, or a session-mode pooler), for LISTEN when
   * connectionString is a transaction-mode pooler (DATABASE_DIRECT_URL).
   */
  directConnectionString?: string;
  /** what connectionString is; "auto" (default) detects it at start (pool-mode.ts) */
  poolMode?: PoolModeSetting;
}

/**
 * The client settings of one kind of connection. Nothing server-side travels in the startup
 * packet: a pooler refuses `options` (PgBouncer: "unsupported startup parameter"), and one that
 * ignores it drops every bound. The server-side bounds are set per transaction instead
 * (bounds.ts), which is also how a single statement runs here (poolDb). The client's own bounds
 * stay: connect and acquire, the query timeout a second past the server's, TCP keepalive.
 */
export function connectionConfig(connectionString: string, applicationName: string, t: DbTimeouts): pg.ClientConfig {
  return {
    connectionString,
    application_name: applicationName,
    connectionTimeoutMillis: t.connectMs,
    query_timeout: t.statementMs + QUERY_TIMEOUT_MARGIN_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: t.tcpMs,
  };
}

function txBounds(t: DbTimeouts, lockMs: number): TxBounds {
  return { statementMs: t.statementMs, lockMs, idleInTransactionMs: t.idleInTransactionMs, tcpMs: t.tcpMs };
}

export function createPostgresStore(opts: PostgresStoreOptions): EventStore {
  if (opts.pool) return createStoreOnPool({ ...opts, pool: opts.pool });
  const schema = schemaNames(opts.schema);
  const onError = opts.onError ?? (() => {});
  const appName = opts.applicationName ?? "threadline";
  const timeouts: DbTimeouts = { ...DEFAULT_DB_TIMEOUTS, ...opts.timeouts };
  const mainBounds = txBounds(timeouts, timeouts.lockMs);
  const leaseBounds = txBounds(timeouts, timeouts.leaseLockMs);
  // Pipelined, so that a single statement is BEGIN, its bounds, itself and COMMIT in one round
  // trip (poolDb.query); a transaction of awaited statements works on it as on any connection.
  const pool = new pg.Pool({
    ...connectionConfig(opts.connectionString, appName, timeouts),
    max: opts.maxConnections ?? 10,
    pipeline: true,
  } as pg.PoolConfig);
  // Heartbeat, acquire, release, claim: one statement each, on connections of their own, with a
  // short lock timeout. Rejected: sharing the main pool, where a writer stuck on a silent socket
  // (and the flushes queued behind it) could hold every connection the heartbeat needs.
  const leasePool = new pg.Pool({
    ...connectionConfig(opts.connectionString, `${appName}:lease`, timeouts),
    max: 2,
    pipeline: true,
  } as pg.PoolConfig);
  // The writer's own connection, pipelined: a flush is BEGIN, its statements and COMMIT sent at
  // once and answered in one round trip, and never waits for a pool slot behind readers. One
  // transaction, so a transaction-mode pooler keeps it on one server connection; its statements
  // are unnamed (pg's default), which PgBouncer before 1.21 requires.
  const writerPool = new pg.Pool({
    ...connectionConfig(opts.connectionString, `${appName}:writer`, timeouts),
    max: 1,
    pipeline: true,
  } as pg.PoolConfig);
  // An idle client whose connection dies emits here; without a listener it would crash the process.
  pool.on("error", (err) => onError(err));
  leasePool.on("error", (err) => onError(err));
  writerPool.on("error", (err) => onError(err));
  const db = poolDb(pool, writerPool, mainBounds);
  const leaseDb = poolDb(leasePool, leasePool, leaseBounds);
  const sessions = sessionPlan(opts, timeouts, `${appName}:listen:${schema.name}`);
  return postgresStore(opts, schema, {
    db,
    leaseDb,
    readWaitMs: timeouts.connectMs,
    listener: (handlers) =>
      plannedDoorbell(sessions, (plan) =>
        plan.doorbell === "polling"
          ? createPollingDoorbell({ followed: handlers.followed, lastSeqs: handlers.lastSeqs, onChanged: handlers.onChanged, onError })
          : createPgListener({
              client: plan.listenClient!,
              channel: schema.channel,
              onPayload: handlers.onPayload,
              onReconnect: handlers.onReconnect,
              onError,
            }),
      ),
    async connections() {
      const plan = await sessions.get();
      const [main, lease] = await Promise.all([effectiveBounds(db), effectiveBounds(leaseDb)]);
      return {
        poolMode: plan.poolMode,
        poolModeFrom: plan.poolModeFrom,
        doorbell: plan.doorbell,
        ...(plan.doorbell === "polling" && { pollIntervalMs: POLL_DOORBELL_INTERVAL_MS }),
        timeouts: { main, lease },
        ...(plan.warning && { warning: plan.warning }),
      };
    },
  });
}

async function effectiveBounds(db: Db): Promise<Record<string, string>> {
  const { rows } = await db.query<Record<string, string>>(EFFECTIVE_BOUNDS_SQL);
  return rows[0]!;
}

/** Where this store's session (for LISTEN) comes from, decided once at start. */
interface SessionPlan {
  poolMode: PoolMode;
  poolModeFrom: "detected" | "declared";
  doorbell: ConnectionReport["doorbell"];
  listenClient?: pg.ClientConfig;
  warning?: string;
}

/**
 * Decides, on first need, the pooler mode of the main URL and so where LISTEN goes: the main
 * URL when it keeps sessions, DATABASE_DIRECT_URL when it does not and one is given, else the
 * polling doorbell. Advisory locks need no session here: the migration lock is
 * transaction-scoped (sql/migrations.ts) and leases are rows. A failed detection (the database
 * not answering yet) is retried with backoff, as a LISTEN would be, until the store closes.
 */
function sessionPlan(opts: PostgresStoreOptions, t: DbTimeouts, listenName: string) {
  const setting = opts.poolMode ?? "auto";
  const probeConfig = (url: string) => connectionConfig(url, `${listenName}:probe`, t);
  async function decide(): Promise<SessionPlan> {
    const poolMode: PoolMode = setting === "auto" ? await detectPoolMode(probeConfig(opts.connectionString)) : setting === "transaction" ? "transaction" : "session";
    const poolModeFrom = setting === "auto" ? "detected" : "declared";
    if (poolMode === "session") return { poolMode, poolModeFrom, doorbell: "listen", listenClient: connectionConfig(opts.connectionString, listenName, t) };
    const direct = opts.directConnectionString;
    if (!direct) return { poolMode, poolModeFrom, doorbell: "polling" };
    if ((await detectPoolMode(probeConfig(direct))) === "transaction") {
      return {
        poolMode,
        poolModeFrom,
        doorbell: "polling",
        warning:
          "DATABASE_DIRECT_URL is itself a transaction-mode pooler, where LISTEN cannot hold: point it at the Postgres server " +
          "(or a session-mode pooler); until then other instances' commits are polled for.",
      };
    }
    return { poolMode, poolModeFrom, doorbell: "listen-direct", listenClient: connectionConfig(direct, listenName, t) };
  }
  let decided: Promise<SessionPlan> | undefined;
  const closing = new AbortController();
  return {
    get(): Promise<SessionPlan> {
      decided ??= (async () => {
        for (let attempt = 0; ; attempt++) {
          try {
            return await decide();
          } catch (err) {
            if (closing.signal.aborted) throw err;
            opts.onError?.(coerceError(err));
            const delay = Math.random() * Math.min(5000, 100 * 2 ** attempt);
            await new Promise((resolve) => setTimeout(resolve, delay).unref());
          }
        }
      })();
      return decided;
    },
    close: () => closing.abort(),
  };
}

/** The doorbell the plan calls for, made once the plan is known (at the first follower). */
function plannedDoorbell(sessions: ReturnType<typeof sessionPlan>, make: (plan: SessionPlan) => DoorbellListener): DoorbellListener {
  let inner: DoorbellListener | undefined;
  let closed = false;
  let ready: Promise<void> | undefined;
  return {
    async listening(signal) {
      ready ??= sessions.get().then((plan) => {
        if (!closed) inner = make(plan);
      });
      await untilAborted(ready, signal);
      if (inner && !signal.aborted) await inner.listening(signal);
    },
    async close() {
      closed = true;
      sessions.close();
      await inner?.close();
    },
  };
}

/** The store on its connections: what both ways of opening a Postgres store end with. */
function postgresStore(
  opts: PostgresStoreOptions,
  schema: SchemaNames,
  conn: {
    db: Db;
    leaseDb?: Db;
    readWaitMs: number;
    listener: (handlers: DoorbellHandlers) => DoorbellListener;
    connections?: () => Promise<ConnectionReport>;
  },
): EventStore {
  return createEventStore({
    kind: "postgres",
    db: opts.instrument ? opts.instrument(conn.db) : conn.db,
    ...(conn.leaseDb && { leaseDb: conn.leaseDb }),
    readWaitMs: conn.readWaitMs,
    schema,
    writer: opts.writer,
    retry: opts.retry,
    listener: conn.listener,
    ...(conn.connections && { connections: conn.connections }),
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
  return postgresStore(opts, schema, {
    db,
    // The pool's own acquire bound, as for the store's pools; a pool without one (0, pg's
    // "wait forever") gets the default, so that a read still ends.
    readWaitMs: (pool.options as pg.PoolConfig).connectionTimeoutMillis || DEFAULT_DB_TIMEOUTS.connectMs,
    listener: (handlers) =>
      createPgListener({
        async client() {
          const client = await pool.connect();
          // Destroyed, not returned: a session that LISTENs must not serve the pool's next query.
          return { client, dispose: async () => client.release(true) };
        },
        channel: schema.channel,
        onPayload: handlers.onPayload,
        onReconnect: handlers.onReconnect,
        onError,
      }),
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
async function pipelinedBatch(pool: pg.Pool, statements: readonly Statement[], bounds?: Statement): Promise<Row[][]> {
  const lead = bounds ? 2 : 1;
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (err: Error) => {
    broken = err;
  };
  client.on("error", onError);
  try {
    const sent = [
      client.query("begin"),
      ...(bounds ? [client.query(bounds.text, bounds.params as unknown[])] : []),
      ...statements.map((st) => client.query(st.text, st.params as unknown[])),
      client.query("commit"),
    ];
    const settled = await Promise.allSettled(sent);
    const first = settled.findIndex((r) => r.status === "rejected");
    if (first === -1) {
      const commit = (settled.at(-1) as PromiseFulfilledResult<pg.QueryResult>).value;
      if (commit.command !== "COMMIT") throw new Error(`COMMIT answered ${commit.command}`);
      return settled.slice(lead, -1).map((r) => (r as PromiseFulfilledResult<pg.QueryResult>).value.rows as Row[]);
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

/**
 * A single statement with the connection's bounds: BEGIN, the bounds (SET LOCAL), the statement
 * and COMMIT, pipelined on one pooled connection, so one round trip as an autocommit statement
 * was, and one transaction, which a transaction-mode pooler keeps on one server connection. The
 * first error the server sends is the statement's answer (a failed statement makes COMMIT answer
 * ROLLBACK); a connection that broke is not given back to the pool.
 */
async function boundedStatement<R>(pool: pg.Pool, bounds: Statement, text: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (err: Error) => {
    broken = err;
  };
  client.on("error", onError);
  try {
    const settled = await Promise.allSettled([
      client.query("begin"),
      client.query(bounds.text, bounds.params as unknown[]),
      client.query(text, params as unknown[] | undefined),
      client.query("commit"),
    ]);
    const failed = settled.find((r) => r.status === "rejected");
    if (failed) {
      const err = failed.reason as unknown;
      const code = sqlStateOf(err);
      if (code === undefined || code.startsWith("08") || code.startsWith("57P") || isQueryTimeout(err)) broken = coerceError(err);
      throw err;
    }
    const result = (settled[2] as PromiseFulfilledResult<pg.QueryResult>).value;
    return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
  } finally {
    client.off("error", onError);
    client.release(broken);
  }
}

/**
 * The Db of a pg.Pool. With `bounds`, every transaction and every single statement sets them
 * first (bounds.ts); without (an application's own pool), the pool's settings are what hold.
 */
export function poolDb(pool: pg.Pool, writerPool: pg.Pool = pool, bounds?: TxBounds): Db {
  const beginScript = bounds ? beginBoundedScript(bounds) : "begin";
  const boundsSt = bounds ? boundsStatement(bounds) : undefined;
  return {
    kind: "postgres",
    query: boundsSt ? (text, params) => boundedStatement(pool, boundsSt, text, params) : clientQueryable(pool).query,

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
        await run(beginScript);
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

    batch: (statements) => pipelinedBatch(writerPool, statements, boundsSt),

    async close() {
      await Promise.all([pool.end(), writerPool === pool ? undefined : writerPool.end()]);
    },
  };
}
