/**
 * The server-side bounds of a Postgres transaction, set inside it with SET LOCAL, so that they
 * reach the server through a transaction-mode pooler (PgBouncer, Supabase's, Neon's) and vanish
 * with the transaction, never leaking into another client's use of the same server connection.
 *
 * Rejected: the startup parameter `options=-c statement_timeout=...`, which PgBouncer refuses
 * ("unsupported startup parameter: options") and which, once ignored there, leaves no bound at
 * all; a session `SET` on connect, which a transaction pooler hands on to other clients and never
 * re-applies to the server connection our next statement lands on; `ALTER ROLE ... SET`, a
 * change to the operator's database that this process has no business making.
 */
/** The bounds of one kind of connection, in milliseconds. */
export interface TxBounds {
  statementMs: number;
  lockMs: number;
  idleInTransactionMs: number;
  /** the server's tcp_user_timeout: unacknowledged data to a silent client while the transaction lasts */
  tcpMs: number;
}

/** The settings, by name, in the order they are set and reported. */
export function boundSettings(b: TxBounds): ReadonlyArray<readonly [string, number]> {
  return [
    ["statement_timeout", b.statementMs],
    ["lock_timeout", b.lockMs],
    ["idle_in_transaction_session_timeout", b.idleInTransactionMs],
    ["tcp_user_timeout", b.tcpMs],
  ];
}

/**
 * On Citus, the SET LOCALs after this one are sent on to the workers' part of the transaction.
 * Without it a lock_timeout bounds only the coordinator's own waits: a row lock is taken on the
 * worker holding the row, and a heartbeat on a row another transaction held waited until that one
 * ended (2.9 s against the lease pool's 1 s, measured on Citus 13.2) rather than failing at its
 * bound. Postgres without Citus keeps it as an unused custom setting of the transaction.
 * Rejected: `ALTER DATABASE ... SET` (the operator's database is not this process's to change)
 * and a session SET (lost behind a transaction-mode pooler).
 */
const PROPAGATE_TO_WORKERS = "set local citus.propagate_set_commands = 'local'";

/**
 * `begin` and the bounds as one simple-protocol script: one round trip where a transaction is
 * run one awaited statement at a time. The values are integers checked here, so the text holds
 * nothing a caller wrote.
 */
export function beginBoundedScript(b: TxBounds): string {
  const sets = boundSettings(b).map(([name, ms]) => `set local ${name} = ${checkedMs(name, ms)}`);
  return ["begin", PROPAGATE_TO_WORKERS, ...sets].join("; ");
}

/**
 * The bounds set for the rest of a session (SET, not SET LOCAL): only for a connection the caller
 * opened for itself and ends after use, on a URL that keeps sessions, where nothing else will
 * ever run on it (a long migration's own session, pg-long-migrations.ts).
 */
export function sessionBoundsScript(b: TxBounds): string {
  return boundSettings(b)
    .map(([name, ms]) => `set ${name} = ${checkedMs(name, ms)}`)
    .join("; ");
}

/** What the server applies, as it reports it: read inside a bounded transaction at start. */
export const EFFECTIVE_BOUNDS_SQL = `select current_setting('statement_timeout') as statement_timeout,
  current_setting('lock_timeout') as lock_timeout,
  current_setting('idle_in_transaction_session_timeout') as idle_in_transaction_session_timeout,
  current_setting('tcp_user_timeout') as tcp_user_timeout`;

function checkedMs(name: string, ms: number): number {
  if (!Number.isSafeInteger(ms) || ms < 0) throw new RangeError(`${name} must be a whole number of milliseconds >= 0, got ${ms}`);
  return ms;
}
