/**
 * The migration runner, shared by both backends. Migrations are the numbered files in
 * ./migrations (`0001_init.sql`, ...), applied in order, each in its own transaction whose first
 * statement claims its row in `migrations` (graphile-worker's scheme). Any number of processes
 * may migrate at once: a loser waits on the winner's row and then finds it applied.
 */
import { readdirSync, readFileSync } from "node:fs";
import type { Db } from "./db.ts";
import { coerceError, StoreNotReadyError } from "./errors.ts";
import { withRetry } from "./retry.ts";
import type { SchemaNames } from "./schema.ts";
import { bootstrapMigrations, claimMigration, selectLatestMigration } from "./sql/migrations.ts";

export interface Migration {
  id: number;
  name: string;
  /** the script, with `:THREADLINE_SCHEMA` standing for the schema */
  sql: string;
}

const MIGRATIONS_DIR = new URL("./migrations/", import.meta.url);
const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;

let cached: readonly Migration[] | undefined;

export function loadMigrations(): readonly Migration[] {
  if (cached) return cached;
  const migrations = readdirSync(MIGRATIONS_DIR)
    .map((file) => ({ file, match: FILE_NAME.exec(file) }))
    .filter((f): f is { file: string; match: RegExpExecArray } => f.match !== null)
    .map(({ file, match }) => ({
      id: Number(match[1]),
      name: match[2]!,
      sql: readFileSync(new URL(file, MIGRATIONS_DIR), "utf8"),
    }))
    .sort((a, b) => a.id - b.id);
  migrations.forEach((m, i) => {
    if (m.id !== i + 1) throw new Error(`Migrations must be numbered 0001, 0002, ... without gaps; found ${m.id} at position ${i + 1}`);
  });
  cached = migrations;
  return migrations;
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

/** Readiness: throws StoreNotReadyError unless every known migration is applied. */
export async function assertMigrated(db: Db, schema: SchemaNames): Promise<void> {
  let applied: number;
  try {
    applied = await selectLatestMigration(db, schema.ident);
  } catch (err) {
    throw new StoreNotReadyError(`cannot read ${schema.name}.migrations; run migrate() first`, { cause: err });
  }
  const expected = latestMigrationId();
  if (applied < expected) {
    throw new StoreNotReadyError(`schema ${schema.name} is at migration ${applied}, this code needs ${expected}; run migrate()`);
  }
}
