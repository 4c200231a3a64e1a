/**
 * The migration runner, shared by both backends. Migrations are the numbered files in
 * ./migrations (`0001_init.sql`, ...), applied in order, each in its own transaction whose first
 * statement claims its row in `migrations` (graphile-worker's scheme). Any number of processes
 * may migrate at once: a loser waits on the winner's row and then finds it applied. A migration
 * that declares itself long (migration-plan.ts) runs on connections of its own instead
 * (long-migration.ts). Migrations run with bounds of their own, not a request's, and a transient
 * loss rolls the migration back and tries it again (migration-bounds.ts, isMigrationRetryable):
 * a starved CPU makes a migration slow, and slow is not dead.
 *
 * The scripts come from migrations.generated.ts (`npm run gen:migrations`), not from reading
 * ./migrations at run time: the package then runs from dist/ or from a user's bundle, where that
 * directory is not next to the code.
 *
 * The schema window. This release runs on the schema of its newest migration (it applies its
 * migrations at start) and on any newer one whose migrations keep it working: the window is
 * written into the database with each migration (`compatible_from`), so that this code, which
 * knows nothing of later migrations, still reads whether it runs on them. Outside it, readiness
 * fails (SchemaTooNewError: /readyz 503) and the load balancer stops sending this instance work.
 */
import type { Db, Tx } from "./db.ts";
import { CommitOutcomeUnknownError, coerceError, DatabaseUnavailableError, SchemaTooNewError, StoreNotReadyError } from "./errors.ts";
import { applyOutsideTransaction, applyWithoutTimeout, NoMigrationSessionError, type LongMigrationDb } from "./long-migration.ts";
import { migrationFile, planMigrations, type Migration, type PlannedMigration } from "./migration-plan.ts";
import { MIGRATIONS } from "./migrations.generated.ts";
import { MIGRATION_RETRY, STARTUP_CONNECT_TRIES } from "./migration-bounds.ts";
import { causes, isConnectTimeout, isTransientError, withRetry, type RetryOptions } from "./retry.ts";
import type { SchemaNames } from "./schema.ts";
import { distributeSchema, type DistributeSetting } from "./distribution.ts";
import { hasCitus } from "./sql/distribution.ts";
import { bootstrapMigrations, claimMigration, lockSchemaSetup, selectAppliedMigrations, selectSchemaWindow } from "./sql/migrations.ts";

export type { Migration } from "./migration-plan.ts";

let planned: readonly PlannedMigration[] | undefined;

/** This release's migrations, checked and with their directives. */
export function loadMigrations(): readonly PlannedMigration[] {
  planned ??= planMigrations(MIGRATIONS);
  return planned;
}

/** The newest migration this release knows: the oldest schema it runs on. */
export function latestMigrationId(): number {
  return loadMigrations().at(-1)?.id ?? 0;
}

export interface MigrateOptions {
  /** where long migrations run; without it, a long migration is refused with the reason */
  long?: LongMigrationDb;
  /** the migrations to apply (default: this release's); a test stands for another release with its own list */
  migrations?: readonly Migration[];
  /** the retries of a transient loss (default MIGRATION_RETRY, migration-bounds.ts); a test shortens them */
  retry?: Omit<RetryOptions, "retryIf">;
  /** "auto" (default): on a database with Citus, the tables are distributed after the migrations (distribution.ts) */
  distribute?: DistributeSetting;
}

/**
 * Whether a failed migration attempt is tried again: a transient loss (retry.ts: the connection
 * reset or ended by the server, 57P01, 25P03, a deadlock or serialization failure, a lock wait
 * that gave up), and a COMMIT whose answer was lost. That one is unknown to every other caller
 * (CommitOutcomeUnknownError, never retried), but not to a migration: its next attempt begins
 * with the claim of its row (claimMigration; isMigrationApplied outside a transaction), which
 * reads whether the lost COMMIT applied it, in the statement that takes the row: applied, the
 * attempt does nothing; not, it runs the migration again, whose first run rolled back entirely.
 */
export function isMigrationRetryable(err: unknown): boolean {
  return [...causes(err)].some((e) => e instanceof CommitOutcomeUnknownError) || isTransientError(err);
}

function isConnectTimeoutIn(err: unknown): boolean {
  return [...causes(err)].some(isConnectTimeout);
}

export async function migrate(db: Db, schema: SchemaNames, opts: MigrateOptions = {}): Promise<void> {
  const migrations = opts.migrations ? planMigrations(opts.migrations) : loadMigrations();
  // Each step's retries: connect timeouts in a row end them after STARTUP_CONNECT_TRIES, since a
  // database that opens no connection at all is silent, not slow, and its start fails with that
  // rather than after MIGRATION_RETRY_MAX_MS. Any other failure in between starts the count again.
  const retry = (): RetryOptions => {
    let connectTimeouts = 0;
    const retryIf = (err: unknown): boolean => {
      connectTimeouts = isConnectTimeoutIn(err) ? connectTimeouts + 1 : 0;
      return connectTimeouts < STARTUP_CONNECT_TRIES && isMigrationRetryable(err);
    };
    return { ...MIGRATION_RETRY, ...opts.retry, retryIf };
  };
  await withRetry(() => db.transaction((tx) => bootstrapMigrations(tx, schema.ident, schema.name)), retry());
  // Committed rows are applied for good: skipping them spares a transaction (or a session of its
  // own) per migration at every start. A migration in flight elsewhere is not among them; its
  // claim (or the migration lock) waits for it.
  const applied = await withRetry(() => selectAppliedMigrations(db, schema.ident), retry());
  for (const m of migrations) {
    if (applied.has(m.id)) continue;
    const script = m.sql.replaceAll(":THREADLINE_SCHEMA", schema.ident);
    try {
      await withRetry(() => apply(db, opts.long, schema, m, script), retry());
    } catch (err) {
      if (err instanceof NoMigrationSessionError) {
        throw new Error(
          `Migration ${migrationFile(m)} cannot run on schema ${schema.name}: it runs outside a transaction (-- threadline: no-transaction) ` +
            `under a session advisory lock, and ${err.reason} Then start again; nothing of it ran.`,
          { cause: err },
        );
      }
      const retried = isConnectTimeoutIn(err) ? `${STARTUP_CONNECT_TRIES} tries that opened no connection` : `${Math.round((retry().maxElapsedMs ?? 0) / 1000)} s of retries`;
      const undone = isMigrationRetryable(err)
        ? `after ${retried} (the next start reads whether its last attempt applied it and goes on from there)`
        : m.transaction
        ? "and was rolled back"
        : "outside a transaction: what its statements did before the failure stays, and the next start runs it again from its first statement";
      throw new Error(`Migration ${migrationFile(m)} failed on schema ${schema.name} ${undone}: ${coerceError(err).message}`, { cause: err });
    }
  }
  if (opts.distribute !== "off" && (await withRetry(() => hasCitus(db), retry()))) await withRetry(() => distribute(db, opts.long, schema), retry());
}

/**
 * The distribution step on Citus, under the set-up lock, without a statement timeout where the
 * backend has a connection for that: a schema with rows copies them to the shards.
 */
function distribute(db: Db, long: LongMigrationDb | undefined, schema: SchemaNames): Promise<string[]> {
  const run = async (tx: Tx) => {
    await lockSchemaSetup(tx, schema.name);
    return distributeSchema(tx, schema);
  };
  return long ? long.transactionWithoutTimeout(run) : db.transaction(run);
}

function apply(db: Db, long: LongMigrationDb | undefined, schema: SchemaNames, m: PlannedMigration, script: string): Promise<void> {
  if (m.transaction && m.statementTimeout) {
    return db.transaction(async (tx) => {
      if (!(await claimMigration(tx, schema.ident, m.id, m.name, m.compatibleFrom ?? null))) return;
      await tx.exec(script);
    });
  }
  if (!long) throw new Error("this store has no connection for long migrations (no-transaction, no-statement-timeout)");
  return m.transaction ? applyWithoutTimeout(long, schema, m, script) : applyOutsideTransaction(long, schema, m, script);
}

/**
 * Readiness: throws DatabaseUnavailableError when the database cannot be reached,
 * StoreNotReadyError unless every migration of this release is applied, and SchemaTooNewError
 * when a later release applied a migration that declares this one too old for the schema.
 */
export async function assertMigrated(db: Db, schema: SchemaNames): Promise<void> {
  let window: { applied: number; compatibleFrom: number | null };
  try {
    window = await selectSchemaWindow(db, schema.ident);
  } catch (err) {
    // An unreachable database is that, not a missing schema: "run migrate()" would send the
    // reader after the wrong fault.
    if (err instanceof DatabaseUnavailableError) throw err;
    throw new StoreNotReadyError(`cannot read ${schema.name}.migrations; run migrate() first`, { cause: err });
  }
  const release = latestMigrationId();
  if (window.applied < release) {
    throw new StoreNotReadyError(`schema ${schema.name} is at migration ${window.applied}, this code needs ${release}; run migrate()`);
  }
  if (window.compatibleFrom !== null && window.compatibleFrom > release) {
    throw new SchemaTooNewError(schema.name, window.applied, window.compatibleFrom, release);
  }
}
