/**
 * The Postgres backend: a pg.Pool for reads, the API and migrations; the writer's own pipelined
 * connection for flushes; a small pool for the lease statements (so that a writer stuck on a
 * silent socket cannot starve the heartbeat); and the doorbell of other instances: one dedicated
 * session that LISTENs (on the main URL, or DATABASE_DIRECT_URL behind a transaction-mode
 * pooler), or, with no session to be had, polling (poll-doorbell.ts); and, for a migration that
 * declares itself long, a connection of its own (pg-long-migrations.ts).
 *
 * Every statement carries bounds (DbTimeouts), set per transaction (bounds.ts) so that they pass
 * through a pooler: a silent socket (a failover, a dead NAT: packets dropped, no reset) must end
 * in an error within a known time, on both sides, or a transaction left idle would hold its
 * thread's row lock, and with it the thread, forever.
 */
import pg from "pg";
import type { Db, Row } from "./db.ts";
import type { TxBounds } from "./bounds.ts";
import { EFFECTIVE_BOUNDS_SQL } from "./bounds.ts";
import { createPgListener, untilAborted, type DoorbellListener } from "./listener.ts";
import { createPollingDoorbell, POLL_DOORBELL_INTERVAL_MS } from "./poll-doorbell.ts";
import type { LongMigrationDb } from "./long-migration.ts";
import { connectionConfig, DEFAULT_DB_TIMEOUTS, txBounds, type DbTimeouts } from "./pg-connections.ts";
import { pgLongMigrations, poolLongMigrations } from "./pg-long-migrations.ts";
import { MIGRATION_STATEMENT_MS, migrationBounds, STARTUP_CONNECT_TRIES } from "./migration-bounds.ts";
import type { PoolModeSetting } from "./pool-mode.ts";
import { type OnWait, poolDb } from "./pool-db.ts";
import { preparedNames } from "./prepared.ts";
import { isConnectTimeout } from "./retry.ts";
import { sessionPlanner, type SessionPlan, type SessionPlanner } from "./session-plan.ts";
import { schemaNames, type SchemaNames } from "./schema.ts";
import { createEventStore, type CommonStoreOptions, type DoorbellHandlers } from "./store.ts";
import type { ConnectionReport, EventStore, PoolName, PoolStats } from "./types.ts";

export { connectionConfig, DEFAULT_DB_TIMEOUTS, QUERY_TIMEOUT_MARGIN_MS, type DbTimeouts } from "./pg-connections.ts";

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
  // transaction, so a transaction-mode pooler keeps it on one server connection; its hot
  // statements are named only where the plan finds a session (prepared.ts): PgBouncer before
  // 1.21 in transaction mode loses names between transactions.
  const writerPool = new pg.Pool({
    ...connectionConfig(opts.connectionString, `${appName}:writer`, timeouts),
    max: 1,
    pipeline: true,
  } as pg.PoolConfig);
  // Migrations: one connection, with the migration bounds (migration-bounds.ts) and a client
  // query timeout past their statement bound. Rejected: the main pool, whose clients give up
  // DB_STATEMENT_TIMEOUT_MS + 1 s into a statement and whose transactions carry the request
  // bounds (5 s idle in transaction), which ended a migration starved between two statements.
  // One connection: migrations run one after another; idle, it closes after pg's idle timeout.
  const migrationPool = new pg.Pool({
    ...connectionConfig(opts.connectionString, `${appName}:migrate`, { ...timeouts, statementMs: MIGRATION_STATEMENT_MS }),
    max: 1,
    pipeline: true,
  } as pg.PoolConfig);
  // An idle client whose connection dies emits here; without a listener it would crash the process.
  pool.on("error", (err) => onError(err));
  leasePool.on("error", (err) => onError(err));
  writerPool.on("error", (err) => onError(err));
  migrationPool.on("error", (err) => onError(err));
  const names = new Map<pg.Pool, PoolName>([[pool, "main"], [leasePool, "lease"], [writerPool, "writer"]]);
  const onWait = waitReporter(opts, (p) => names.get(p) ?? "main");
  const listenName = `${appName}:listen:${schema.name}`;
  const sessions = sessionPlanner(opts, timeouts, `${listenName}:probe`);
  // One set of statement names for the three pools: they share the URL, so the session plan
  // that decides whether names survive is theirs too.
  const prepared = preparedNames(keepsPrepared(sessions));
  const db = poolDb(pool, writerPool, mainBounds, onWait, prepared);
  const leaseDb = poolDb(leasePool, leasePool, leaseBounds, onWait, prepared);
  const migrationDb = poolDb(migrationPool, migrationPool, migrationBounds(timeouts.tcpMs));
  return postgresStore(opts, schema, {
    db,
    leaseDb,
    migrationDb,
    open: () => firstConnection(pool),
    readWaitMs: timeouts.connectMs,
    long: storeLongMigrations(opts, timeouts, sessions),
    poolStats: () => [...names].map(([p, name]) => statsOf(p, name)),
    listener: (handlers) =>
      plannedDoorbell(sessions, (plan) =>
        plan.doorbell === "polling" || !plan.sessionUrl
          ? createPollingDoorbell({ followed: handlers.followed, lastSeqs: handlers.lastSeqs, onChanged: handlers.onChanged, onError })
          : createPgListener({
              client: connectionConfig(plan.sessionUrl, listenName, timeouts),
              channel: schema.channel,
              onPayload: handlers.onPayload,
              onReconnect: handlers.onReconnect,
              onError,
            }),
      ),
    async connections() {
      await sessions.check();
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

/**
 * Whether the connections keep named prepared statements: on a session (a direct server, a
 * session-mode pooler), as the session plan found; unknown (so unnamed) until start-up's check
 * or the first follower has decided it. Only read here, never asked for: asking would start the
 * plan's retries ahead of start-up's single check (session-plan.ts known()).
 */
function keepsPrepared(sessions: SessionPlanner): () => boolean | undefined {
  return () => {
    const plan = sessions.known();
    return plan === undefined ? undefined : plan.poolMode === "session";
  };
}

function statsOf(pool: pg.Pool, name: PoolName): PoolStats {
  return { pool: name, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
}

function waitReporter(opts: PostgresStoreOptions, nameOf: (pool: pg.Pool) => PoolName): OnWait | undefined {
  const report = opts.onPoolWait;
  return report ? (pool, ms) => report(nameOf(pool), ms) : undefined;
}

async function effectiveBounds(db: Db): Promise<Record<string, string>> {
  const { rows } = await db.query<Record<string, string>>(EFFECTIVE_BOUNDS_SQL);
  return rows[0]!;
}

/**
 * Long migrations (pg-long-migrations.ts) on the store's URLs: a transaction on the main URL, a
 * session where the plan finds one, each on a client of its own without a client-side timeout.
 */
export function storeLongMigrations(opts: PostgresStoreOptions, timeouts: DbTimeouts, sessions: SessionPlanner, bounds: TxBounds = migrationBounds(timeouts.tcpMs)): LongMigrationDb {
  return pgLongMigrations({
    connectionString: opts.connectionString,
    client: (url) => ({ ...connectionConfig(url, `${opts.applicationName ?? "threadline"}:migrate`, timeouts), query_timeout: undefined }),
    session: async () => {
      const plan = await sessions.get();
      return plan.sessionUrl ? { url: plan.sessionUrl } : { none: plan.noSession ?? "there is no session to be had." };
    },
    // A migration's bounds, not a request's (migration-bounds.ts); statement_timeout is then
    // dropped or kept as the migration declares.
    bounds,
  });
}

/** The doorbell the plan calls for, made once the plan is known (at the first follower). */
function plannedDoorbell(sessions: SessionPlanner, make: (plan: SessionPlan) => DoorbellListener): DoorbellListener {
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
    migrationDb?: Db;
    readWaitMs: number;
    long: LongMigrationDb;
    listener: (handlers: DoorbellHandlers) => DoorbellListener;
    connections?: () => Promise<ConnectionReport>;
    open: () => Promise<void>;
    poolStats: () => PoolStats[];
  },
): EventStore {
  return createEventStore({
    kind: "postgres",
    db: opts.instrument ? opts.instrument(conn.db) : conn.db,
    ...(conn.leaseDb && { leaseDb: conn.leaseDb }),
    ...(conn.migrationDb && { migrationDb: conn.migrationDb }),
    readWaitMs: conn.readWaitMs,
    long: conn.long,
    schema,
    distribute: opts.distribute,
    writer: opts.writer,
    retry: opts.retry,
    listener: conn.listener,
    ...(conn.connections && { connections: conn.connections }),
    open: conn.open,
    poolStats: conn.poolStats,
  });
}

/**
 * One connection opened and given back. A refusal (nothing listening, a wrong password, no such
 * database) fails the start at once; a connect timeout is tried again, after a short pause, up
 * to STARTUP_CONNECT_TRIES times in all.
 */
async function firstConnection(pool: pg.Pool): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      const client = await pool.connect();
      client.release();
      return;
    } catch (err) {
      if (!isConnectTimeout(err) || attempt >= STARTUP_CONNECT_TRIES) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 50 * 2 ** attempt)));
    }
  }
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
  const shared = poolDb(pool, pool, undefined, waitReporter(opts, () => "app"));
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
    long: poolLongMigrations(pool),
    open: () => firstConnection(pool),
    poolStats: () => [statsOf(pool, "app")],
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

