/** SQL of the migration runner (server/store/migrate.ts). */
import type { Queryable } from "../db.ts";

/**
 * Creates the schema and the migrations table. Two processes doing this at once would race on
 * the catalog (`create ... if not exists` is not atomic: the loser fails with 23505), so it runs
 * under a transaction-scoped advisory lock named after the schema.
 *
 * `compatible_from` is each migration's declared window (migration-plan.ts), kept in the database
 * so that a release reads whether it still runs on a schema it has never heard of. Releases from
 * before it made the table without it: it is added once, checked in the catalog first, since
 * ALTER TABLE locks the table (and every readiness probe reading it) even when it has nothing to do.
 */
export async function bootstrapMigrations(db: Queryable, s: string, schemaName: string): Promise<void> {
  await lockSchemaSetup(db, schemaName);
  await db.query(`create schema if not exists ${s}`);
  await db.query(
    `create table if not exists ${s}.migrations (
       id              int primary key,
       name            text not null,
       applied_at      timestamptz not null default now(),
       compatible_from int
     )`,
  );
  const { rows } = await db.query(
    `select 1 from pg_attribute
     where attrelid = $1::regclass and attname = 'compatible_from' and not attisdropped`,
    [`${s}.migrations`],
  );
  if (rows.length === 0) await db.query(`alter table ${s}.migrations add column compatible_from int`);
}

/**
 * The transaction-scoped lock of the schema's set-up: the bootstrap above, and the distribution
 * of its tables on Citus (distribution.ts). On Citus it is the coordinator's lock, where every
 * migrator connects.
 */
export async function lockSchemaSetup(db: Queryable, schemaName: string): Promise<void> {
  await db.query(`select pg_advisory_xact_lock(hashtext('threadline.migrate:' || $1::text))`, [schemaName]);
}

/** The ids of the migrations applied (committed) so far. */
export async function selectAppliedMigrations(db: Queryable, s: string): Promise<Set<number>> {
  const { rows } = await db.query<{ id: number }>(`select id from ${s}.migrations`);
  return new Set(rows.map((r) => r.id));
}

/**
 * Claims a migration: the first statement of the transaction that applies it. When another
 * process holds or has committed the same row, this waits for it and returns false ("already
 * applied"); the caller then commits an empty transaction.
 */
export async function claimMigration(db: Queryable, s: string, id: number, name: string, compatibleFrom: number | null): Promise<boolean> {
  const { rowCount } = await db.query(
    `insert into ${s}.migrations (id, name, compatible_from) values ($1::int, $2::text, $3::int)
     on conflict (id) do nothing`,
    [id, name, compatibleFrom],
  );
  return rowCount === 1;
}

/**
 * Records a migration that ran outside a transaction, once all its statements succeeded. Not
 * `on conflict do nothing`: it runs under the migration lock, after isMigrationApplied said no,
 * so a conflict is a second runner that ignored the lock, which must not pass unseen.
 */
export async function recordMigration(db: Queryable, s: string, id: number, name: string, compatibleFrom: number | null): Promise<void> {
  await db.query(`insert into ${s}.migrations (id, name, compatible_from) values ($1::int, $2::text, $3::int)`, [id, name, compatibleFrom]);
}

export async function isMigrationApplied(db: Queryable, s: string, id: number): Promise<boolean> {
  const { rows } = await db.query(`select 1 from ${s}.migrations where id = $1::int`, [id]);
  return rows.length > 0;
}

/**
 * The lock a migration outside a transaction runs under, on a session of its own: session-scoped,
 * since its statements are not one transaction. Another key than the bootstrap's, whose short
 * transactions must not queue behind a long index build.
 */
export async function lockMigrations(db: Queryable, schemaName: string): Promise<void> {
  await db.query(`select pg_advisory_lock(hashtext('threadline.migrate.session:' || $1::text))`, [schemaName]);
}

export async function unlockMigrations(db: Queryable, schemaName: string): Promise<void> {
  await db.query(`select pg_advisory_unlock(hashtext('threadline.migrate.session:' || $1::text))`, [schemaName]);
}

/** Where the schema stands: its newest migration, and the window the newest declaration set (null: none declared). */
export async function selectSchemaWindow(db: Queryable, s: string): Promise<{ applied: number; compatibleFrom: number | null }> {
  const { rows } = await db.query<{ applied: number | null; compatible_from: number | null }>(
    `select (select max(id) from ${s}.migrations) as applied,
            (select compatible_from from ${s}.migrations
             where compatible_from is not null order by id desc limit 1) as compatible_from`,
  );
  return { applied: rows[0]?.applied ?? 0, compatibleFrom: rows[0]?.compatible_from ?? null };
}
