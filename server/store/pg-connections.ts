/**
 * How the Postgres backend's connections are configured: the bounds of each kind (DbTimeouts),
 * and the client settings every pg.Pool and pg.Client of the store is made with.
 */
import type pg from "pg";
import type { TxBounds } from "./bounds.ts";

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

export function txBounds(t: DbTimeouts, lockMs: number): TxBounds {
  return { statementMs: t.statementMs, lockMs, idleInTransactionMs: t.idleInTransactionMs, tcpMs: t.tcpMs };
}
