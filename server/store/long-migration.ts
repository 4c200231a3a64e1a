/**
 * How a backend runs the migrations that do not fit the store's bounded transactions
 * (migration-plan.ts): `no-statement-timeout`, and `no-transaction` (CREATE INDEX CONCURRENTLY).
 * Each backend provides the connections (Postgres: pg-long-migrations.ts; PGlite: pglite.ts);
 * what runs on them, and when a migration counts as applied, is here, the same for both.
 */
import type { Queryable, Tx } from "./db.ts";
import type { PlannedMigration } from "./migration-plan.ts";
import type { SchemaNames } from "./schema.ts";
import { splitStatements } from "./sql-script.ts";
import { claimMigration, isMigrationApplied, recordMigration } from "./sql/migrations.ts";

export interface LongMigrationDb {
  /**
   * BEGIN, fn, COMMIT without a statement timeout: neither the server's statement_timeout nor a
   * client-side one (pg's query_timeout would give up on the build the server is still doing).
   */
  transactionWithoutTimeout<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * fn on a connection of its own that keeps its session, each statement outside a transaction,
   * with statement_timeout as asked, holding the schema's migration lock (Postgres: a session
   * advisory lock, sql/migrations.ts lockMigrations) for the whole call. The lock is waited for
   * without a bound: its holder is another process running a long migration, and it is freed
   * when that one ends or its session dies. Rejects, with a sentence saying what to configure,
   * where no session can be had (a transaction-mode pooler without DATABASE_DIRECT_URL).
   */
  underMigrationLock<T>(schema: SchemaNames, opts: { statementTimeout: boolean }, fn: (session: Queryable) => Promise<T>): Promise<T>;
}

/** No session to hold the migration lock on: `reason` says what to configure. Nothing of the migration ran. */
export class NoMigrationSessionError extends Error {
  override readonly name = "NoMigrationSessionError";
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** A `no-statement-timeout` migration that keeps its transaction: claimed and applied as any other, without the bound. */
export async function applyWithoutTimeout(long: LongMigrationDb, schema: SchemaNames, m: PlannedMigration, script: string): Promise<void> {
  await long.transactionWithoutTimeout(async (tx) => {
    if (!(await claimMigration(tx, schema.ident, m.id, m.name, m.compatibleFrom ?? null))) return;
    await tx.exec(script);
  });
}

/**
 * A `no-transaction` migration: under the migration lock (a session advisory lock, so that two
 * processes never run it at once; the second waits, then finds it applied), its statements one
 * by one, then its row, only once every statement succeeded. A crash in between leaves it half
 * done and unrecorded: the next start runs it again from the first statement, which is why such
 * a migration must be idempotent (IF NOT EXISTS; DROP INDEX CONCURRENTLY IF EXISTS before a
 * CREATE INDEX CONCURRENTLY, whose failure leaves an invalid index behind that IF NOT EXISTS would keep).
 */
export async function applyOutsideTransaction(long: LongMigrationDb, schema: SchemaNames, m: PlannedMigration, script: string): Promise<void> {
  const statements = splitStatements(script);
  await long.underMigrationLock(schema, { statementTimeout: m.statementTimeout }, async (session) => {
    if (await isMigrationApplied(session, schema.ident, m.id)) return;
    for (const statement of statements) await session.query(statement);
    await recordMigration(session, schema.ident, m.id, m.name, m.compatibleFrom ?? null);
  });
}
