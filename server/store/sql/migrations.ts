/** SQL of the migration runner (server/store/migrate.ts). */
import type { Queryable } from "../db.ts";

/**
 * Creates the schema and the migrations table. Two processes doing this at once would race on
 * the catalog (`create ... if not exists` is not atomic: the loser fails with 23505), so it runs
 * under a transaction-scoped advisory lock named after the schema.
 */
export async function bootstrapMigrations(db: Queryable, s: string, schemaName: string): Promise<void> {
  await db.query(`select pg_advisory_xact_lock(hashtext('threadline.migrate:' || $1::text))`, [schemaName]);
  await db.query(`create schema if not exists ${s}`);
  await db.query(
    `create table if not exists ${s}.migrations (
       id         int primary key,
       name       text not null,
       applied_at timestamptz not null default now()
     )`,
  );
}

/**
 * Claims a migration: the first statement of the transaction that applies it. When another
 * process holds or has committed the same row, this waits for it and returns false ("already
 * applied"); the caller then commits an empty transaction.
 */
export async function claimMigration(db: Queryable, s: string, id: number, name: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `insert into ${s}.migrations (id, name) values ($1::int, $2::text)
     on conflict (id) do nothing`,
    [id, name],
  );
  return rowCount === 1;
}

/** The id of the newest applied migration, 0 when none is. */
export async function selectLatestMigration(db: Queryable, s: string): Promise<number> {
  const { rows } = await db.query<{ id: number | null }>(`select max(id) as id from ${s}.migrations`);
  return rows[0]?.id ?? 0;
}
