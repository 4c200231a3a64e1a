/**
 * The migration runner, shared by both backends. Migrations are the numbered files in
 * ./migrations (`0001_init.sql`, ...), applied in order, each in its own transaction whose first
 * statement claims its row in `migrations` (graphile-worker's scheme). Any number of processes
 * may migrate at once: a loser waits on the winner's row and then finds it applied.
 *
 * The scripts come from migrations.generated.ts (`npm run gen:migrations`), not from reading
 * ./migrations at run time: the package then runs from dist/ or from a user's bundle, where that
 * directory is not next to the code.
 */
import type { Db } from "./db.ts";
import { coerceError, DatabaseUnavailableError, StoreNotReadyError } from "./errors.ts";
import { MIGRATIONS } from "./migrations.generated.ts";
import { withRetry } from "./retry.ts";
import type { SchemaNames } from "./schema.ts";
import { bootstrapMigrations, claimMigration, selectLatestMigration } from "./sql/migrations.ts";

export interface Migration {
  id: number;
  name: string;
  /** the script, with `:THREADLINE_SCHEMA` standing for the schema */
  sql: string;
}

let checked = false;

export function loadMigrations(): readonly Migration[] {
  if (checked) return MIGRATIONS;
  MIGRATIONS.forEach((m, i) => {
    if (m.id !== i + 1) throw new Error(`Migrations must be numbered 0001, 0002, ... without gaps; found ${m.id} at position ${i + 1}`);
  });
  checked = true;
  return MIGRATIONS;
}

export function latestMigrationId(): number {
  return loadMigrations().at(-1)?.id ?? 0;
}

export async function migrate(db: Db, schema: SchemaNames): Promise<void> {
  await withRetry(() => db.transaction((tx) => bootstrapMigrations(tx, schema.ident, schema.name)));
  for (const m of loadMigrations()) {
    try {
      await withRetry(() =>
        db.transaction(async (tx) => {
          if (!(await claimMigration(tx, schema.ident, m.id, m.name))) return;
          await tx.exec(m.sql.replaceAll(":THREADLINE_SCHEMA", schema.ident));
        }),
      );
    } catch (err) {
      const file = `${String(m.id).padStart(4, "0")}_${m.name}.sql`;
      throw new Error(`Migration ${file} failed on schema ${schema.name} and was rolled back: ${coerceError(err).message}`, {
        cause: err,
      });
    }
  }
}

/**
 * Readiness: throws DatabaseUnavailableError when the database cannot be reached, else
 * StoreNotReadyError unless every known migration is applied.
 */
export async function assertMigrated(db: Db, schema: SchemaNames): Promise<void> {
  let applied: number;
  try {
    applied = await selectLatestMigration(db, schema.ident);
  } catch (err) {
    // An unreachable database is that, not a missing schema: "run migrate()" would send the
    // reader after the wrong fault.
    if (err instanceof DatabaseUnavailableError) throw err;
    throw new StoreNotReadyError(`cannot read ${schema.name}.migrations; run migrate() first`, { cause: err });
  }
  const expected = latestMigrationId();
  if (applied < expected) {
    throw new StoreNotReadyError(`schema ${schema.name} is at migration ${applied}, this code needs ${expected}; run migrate()`);
  }
}
