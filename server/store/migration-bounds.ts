/**
 * The bounds of a migration, apart from a request's. A bound exists to catch a dead peer, not a
 * slow one: a request transaction gets 5 s idle in transaction because a request is a few
 * statements issued back to back and a thread's row lock must not outlive a vanished client.
 * A migration runs once per schema, at start, while the process also loads its modules and opens
 * its pools: on a starved CPU (a pod under a CPU limit, busy loops on every core) it was measured
 * idle between two of its statements for more than 5 s, and the server then ended it
 * ("terminating connection due to idle-in-transaction timeout", then "The connection was lost
 * during COMMIT") and the instance failed to start (issue 29: one of two instances in 3 of 3 rounds).
 *
 * A dead peer is still caught: a process that exits closes its socket (the server sees it at
 * once), a host or network that vanished is caught by TCP (tcp_user_timeout, keepalive: the
 * store's DB_TCP_TIMEOUT_MS, kept here), and a process alive but hung is ended by the generous
 * bounds below. Rejected: no bound at all (a hung migrator would hold its locks, and every other
 * instance's traffic on those tables, forever) and the request bounds (a slow peer is killed).
 */
import type { TxBounds } from "./bounds.ts";
import type { RetryOptions } from "./retry.ts";

/**
 * idle_in_transaction_session_timeout of a migration: 60 s, eight times the longest event-loop
 * stall measured during a start at load ~14 (7.35 s, issue 29). What it costs when it does
 * catch a hung migrator: the tables that migration locked wait that long.
 */
export const MIGRATION_IDLE_IN_TRANSACTION_MS = 60_000;

/**
 * statement_timeout of a migration that keeps one (no `no-statement-timeout` directive): 5 min.
 * The request bound (15 s) is for a request's indexed statements; a migration's statement may
 * rewrite or scan a table. A migration that needs longer declares `no-statement-timeout`.
 */
export const MIGRATION_STATEMENT_MS = 300_000;

/**
 * lock_timeout of a migration: 10 s. Deliberately short: a DDL statement waiting for its lock
 * queues every other statement on the table behind it (Postgres grants locks in order), so it
 * gives up and retries with backoff (MIGRATION_RETRY) rather than stall the traffic of
 * instances still serving. The loser of the race for a migration's row waits for the winner
 * the same way: its claim waits up to this bound, then tries again until the winner committed.
 * Rejected: waiting without a bound, which holds the table's queue behind a lock for as long
 * as its holder lives.
 */
export const MIGRATION_LOCK_MS = 10_000;

/**
 * How long one migration is tried again after a transient loss (a connection reset, the server
 * ending the session, a deadlock, a lock wait that gave up, a COMMIT whose answer was lost):
 * 5 min, so that an instance started next to the winner waits through the winner's whole
 * migration on a starved CPU, and a database failover (tens of seconds) pauses the start rather
 * than failing it. Past it, the start fails with the migration's name and the last error.
 */
export const MIGRATION_RETRY_MAX_MS = 300_000;

/**
 * How many times a start tries to open its first connection while each try runs out of its
 * connect bound (DB_CONNECT_TIMEOUT_MS): 6, half a minute at the default 5 s. A database that
 * only answers slowly (a process or a server starved of CPU: measured, 2 of 20 starts with two
 * busy loops per core lost their first connection to the 5 s bound) is waited for; one that
 * never answers fails the start with DATABASE_SILENT after the last try. The same count ends a
 * migration's retries when only connect timeouts come (migrate.ts): the retry bound below is for
 * a database that answers slowly, not for one that accepts no connection at all. Rejected: a longer
 * connect bound for every connection, which would hold each request that waits for a pool
 * connection as long.
 */
export const STARTUP_CONNECT_TRIES = 6;

/** The backoff of those retries: the first after up to 50 ms, doubling, each at most 2 s (with full jitter, retry.ts). */
export const MIGRATION_RETRY: Readonly<RetryOptions> = { maxElapsedMs: MIGRATION_RETRY_MAX_MS, baseDelayMs: 50, maxDelayMs: 2_000 };

/** A migration transaction's bounds: the ones above, and the store's TCP bound (a dead peer's). */
export function migrationBounds(tcpMs: number): TxBounds {
  return { statementMs: MIGRATION_STATEMENT_MS, lockMs: MIGRATION_LOCK_MS, idleInTransactionMs: MIGRATION_IDLE_IN_TRANSACTION_MS, tcpMs };
}
