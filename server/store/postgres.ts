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
import type { Db, Row } from "./db.ts";
import { coerceError } from "./errors.ts";
import { EFFECTIVE_BOUNDS_SQL, type TxBounds } from "./bounds.ts";
import { createPgListener, untilAborted, type DoorbellListener } from "./listener.ts";
import { createPollingDoorbell, POLL_DOORBELL_INTERVAL_MS } from "./poll-doorbell.ts";
import { detectPoolMode, type PoolMode, type PoolModeSetting } from "./pool-mode.ts";
import { poolDb } from "./pool-db.ts";
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

