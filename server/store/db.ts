/**
 * The narrow database seam every SQL function takes: `query(text, params)`, as pg-boss's
 * `executeSql`. Postgres (a pg.Pool) and PGlite both provide it, so both run the very same SQL.
 */
export type Row = Record<string, unknown>;

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface Queryable {
  /** `name`: a hot statement's (Statement.name) */
  query<R = Row>(text: string, params?: readonly unknown[], name?: string): Promise<QueryResult<R>>;
}

/** One statement with its parameters, for Db.batch. */
export interface Statement {
  text: string;
  params: readonly unknown[];
  /**
   * Given to the statements of the hot path (a flush, the heartbeat, a follower's read): where
   * the connection keeps prepared statements (pool-db.ts), it is then parsed and planned once per
   * connection and only bound and executed after. Elsewhere it is ignored.
   */
  name?: string;
}

/** A connection inside a transaction; `exec` runs a multi-statement script (migrations). */
export interface Tx extends Queryable {
  exec(script: string): Promise<void>;
}

/** One backend: statements outside a transaction, transactions on one connection, close. */
export interface Db extends Queryable {
  readonly kind: "postgres" | "pglite";
  /** BEGIN, fn, COMMIT (ROLLBACK when fn throws). */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Runs the statements, in order, in one transaction, in one round trip where the backend can
   * (Postgres: BEGIN, the statements and COMMIT pipelined on the writer's own connection), and
   * resolves with each statement's rows. Rejects having written nothing when a statement fails,
   * or with CommitOutcomeUnknownError when the connection broke after the batch was sent.
   */
  batch(statements: readonly Statement[]): Promise<Row[][]>;
  close(): Promise<void>;
}

/** timestamptz as pg and PGlite parse it (Date), or as text / epoch ms: to ms since epoch. */
export function toMs(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value === "number") return value;
  if (typeof value === "string") return new Date(value).getTime();
  throw new TypeError(`Expected a timestamp, got ${typeof value}`);
}

export function toMsOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : toMs(value);
}

/** bigint columns: pg returns text, PGlite a number. Sequence numbers stay below 2^53. */
export function toNum(value: unknown): number {
  return typeof value === "number" ? value : Number(value);
}
