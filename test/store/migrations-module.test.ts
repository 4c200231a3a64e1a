/**
 * The migrations the store runs come from a generated module (so dist/ and bundles need no .sql
 * files on disk); the .sql files stay the source. This fails whenever the two differ: run
 * `npm run gen:migrations` after editing or adding a migration.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GENERATED_MODULE, readMigrationFiles, renderMigrationsModule } from "../../scripts/migrations.ts";
import { loadMigrations } from "../../server/store/migrate.ts";

describe("generated migrations module", () => {
  it("is exactly what the .sql files generate", () => {
    expect(readFileSync(GENERATED_MODULE, "utf8"), "run `npm run gen:migrations`").toBe(renderMigrationsModule(readMigrationFiles()));
  });

  it("is what the store applies, script for script", () => {
    const files = readMigrationFiles();
    expect(files.length).toBeGreaterThanOrEqual(5);
    expect(loadMigrations().map(({ id, name, sql }) => ({ id, name, sql }))).toEqual(files);
  });
});
